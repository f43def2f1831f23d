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
// Postgres and NATS for the int and e2e projects: found (COFFER_TEST_DATABASE_URL / 127.0.0.1:5432,
// COFFER_TEST_NATS_URL / 127.0.0.1:4222) or started for the run (libs/testing/src/test-infra.ts).
const infra = {
  globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.ts',
};
module.exports = {
  // On two cores jest runs one worker; a test that fails half-way can leave a socket or timer
  // behind, and jest would then wait for it forever instead of reporting (a CI run that never ends).
  forceExit: true,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    { ...common, ...infra, displayName: 'int', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...common, ...infra, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
