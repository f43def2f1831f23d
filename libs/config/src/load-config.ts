import { ENV, devDefaults, envValue, readProcessEnv, type Env } from './config-env';
import { ConfigError } from './config-errors';
import { loadServerConfigFile, validateRawConfig } from './server-config';
import type { ServerConfig } from './server-config.schema';

export interface LoadConfigOptions {
  /** command-line arguments without node and the script (default: process.argv.slice(2)) */
  argv?: readonly string[];
  /** default: process.env */
  env?: Env;
}

const FLAGS = ['-config', '--config'];

/**
 * The config file named on the command line (`-config <file>`, `-config=<file>`, `--config ...`)
 * or by COFFER_CONFIG; undefined means dev mode. Other arguments are left to the app.
 */
export function configPathFromArgs(argv: readonly string[], env: Env): string | undefined {
  const found: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const flag = FLAGS.find((f) => arg === f || arg.startsWith(`${f}=`));
    if (!flag) continue;
    const value = arg === flag ? argv[++i] : arg.slice(flag.length + 1);
    if (value === undefined || value === '' || (arg === flag && value.startsWith('-'))) {
      throw new ConfigError([`${flag} needs a file path: ${flag} <file>`]);
    }
    found.push(value);
  }
  if (found.length > 1)
    throw new ConfigError([`only one config file may be given, got: ${found.join(', ')}`]);
  return found[0] ?? envValue(env, ENV.config);
}

/**
 * The server configuration: the HCL file given by -config / COFFER_CONFIG, or the dev defaults
 * when there is none (listeners on COFFER_DEV_LISTEN_ADDRESS and COFFER_OPS_LISTEN_ADDRESS,
 * in-memory or COFFER_DEV_DATA_DIR PGlite), with COFFER_* environment overrides applied.
 * Throws ConfigError listing every invalid field.
 */
export function loadConfig(options: LoadConfigOptions = {}): ServerConfig {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? readProcessEnv();
  const path = configPathFromArgs(argv, env);
  if (path !== undefined) return loadServerConfigFile(path, { env });
  return validateRawConfig(devDefaults(env), { env });
}
