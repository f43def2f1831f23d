import type { z } from 'zod';
import { readProcessEnv, type Env } from './config-env';
import { CONFIG_EXIT_CODE, ConfigError, zodIssues } from './config-errors';
import { loadConfig, type LoadConfigOptions } from './load-config';
import type { ServerConfig } from './server-config.schema';

export interface AppConfigDefinition<S extends z.ZodType> {
  readonly schema: S;
  /**
   * Loads the server configuration, builds the app's input from it and the environment, and
   * validates it. Throws ConfigError listing every invalid field. Call once at boot.
   */
  load(options?: LoadConfigOptions): z.output<S>;
  /** For main.ts: load, or print the problems to stderr and exit with code 2. */
  loadOrExit(options?: LoadConfigOptions): z.output<S>;
}

/**
 * An app's own configuration schema, fed from the server config and the environment:
 *
 * ```ts
 * export const gatewayConfig = defineAppConfig(
 *   z.object({ api: z.object({ address: z.string() }), natsUrl: z.string().optional() }),
 *   (server) => ({ api: listenerFor(server, 'api'), natsUrl: server.nats?.url }),
 * );
 * const config = gatewayConfig.loadOrExit();
 * ```
 * The build function may throw ConfigError (e.g. via listenerFor); its issues are reported too.
 */
export function defineAppConfig<S extends z.ZodType>(
  schema: S,
  build: (server: ServerConfig, env: Env) => unknown,
): AppConfigDefinition<S> {
  const load = (options: LoadConfigOptions = {}): z.output<S> => {
    const env = options.env ?? readProcessEnv();
    const server = loadConfig({ ...options, env });
    const result = schema.safeParse(build(server, env));
    if (!result.success) throw new ConfigError(zodIssues(result.error), server.source);
    return result.data;
  };
  return {
    schema,
    load,
    loadOrExit(options) {
      try {
        return load(options);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        process.stderr.write(`${e.message}\n`);
        return process.exit(CONFIG_EXIT_CODE);
      }
    },
  };
}
