import { Counter } from 'prom-client';

/** Restarts of external plugin processes after they exited, by plugin name. */
export const pluginRestarts = new Counter({
  name: 'coffer_plugin_restarts_total',
  help: 'External plugin processes restarted after exiting, by plugin',
  labelNames: ['plugin'] as const,
});
