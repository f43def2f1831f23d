// One jest run, three projects: pure unit specs, integration specs against real
// Postgres + NATS, and end-to-end specs that drive running processes over HTTP.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const { compilerOptions } = require('./tsconfig.base.json');
// tsconfig's wildcard aliases ("@coffer/*" -> "libs/*/src/index.ts") as jest mappings.
const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  const pattern = alias.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '(.*)');
  moduleNameMapper[`^${pattern}$`] = `<rootDir>/${target.replace('*', '$1')}`;
}
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  // ESM-only packages, compiled to CommonJS like the sources (hashi-vault-js: test/clients)
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|hashi-vault-js)/)'],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
