/** The plugin's one read of the environment: what its host started it with (COFFER_PLUGIN_*). */
export const pluginEnv = (): NodeJS.ProcessEnv => ({ ...process.env });
