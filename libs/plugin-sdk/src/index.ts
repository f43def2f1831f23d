export * from './plugin-definition';
export { PluginRouter } from './plugin-router';
export { runPlugin } from './plugin-runner';
