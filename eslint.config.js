// Type-checked typescript-eslint + Nx module boundaries. Feature libs never import each other:
// between services there is only @coffer/contracts and the transport.
const tseslint = require('typescript-eslint');
const js = require('@eslint/js');
const nx = require('@nx/eslint-plugin');
const prettier = require('eslint-config-prettier');

module.exports = tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.nx/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through the app config schema.' },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:composition', 'type:feature', 'type:util', 'type:contracts'],
            },
            {
              sourceTag: 'type:e2e',
              onlyDependOnLibsWithTags: ['type:composition', 'type:util', 'type:contracts'],
            },
            // @coffer/engines: the one list of engine services, composed by apps, tools and the e2e support.
            {
              sourceTag: 'type:composition',
              onlyDependOnLibsWithTags: ['type:feature', 'type:util', 'type:contracts'],
            },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'scope:kv', onlyDependOnLibsWithTags: ['scope:kv', 'scope:shared'] },
            { sourceTag: 'scope:pki', onlyDependOnLibsWithTags: ['scope:pki', 'scope:shared'] },
            { sourceTag: 'scope:core-sys', onlyDependOnLibsWithTags: ['scope:core-sys', 'scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:oidc', onlyDependOnLibsWithTags: ['scope:oidc', 'scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // Config schemas are the one place that reads the environment.
    files: ['**/config/**/*.ts', '**/*.config.ts', 'tools/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      'test/**/*.ts',
      'libs/testing/**/*.ts',
      '**/migrations/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-properties': 'off',
    },
  },
  prettier,
);
