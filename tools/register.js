// Runs TypeScript sources directly (swc: fast, keeps decorator metadata for NestJS DI)
// and resolves the @coffer/* path aliases from tsconfig.base.json.
process.env.SWC_NODE_PROJECT =
  process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.base.json');
require('@swc-node/register');
