export {
  parseDuration,
  parseDurationMs,
  parseDurationNanos,
  parseGoDuration,
  formatDuration,
  formatNanos,
} from '@coffer/contracts';
export { CONFIG_EXIT_CODE, ConfigError } from './config-errors';
export {
  ENV,
  DEV_LISTEN_ADDRESS,
  OPS_LISTEN_ADDRESS,
  applyEnvOverrides,
  devDefaults,
  envValue,
  readProcessEnv,
  type Env,
} from './config-env';
export {
  DEFAULT_LEASE_TTL,
  DEFAULT_MAX_REQUEST_SIZE,
  LISTENER_PURPOSES,
  LOG_LEVELS,
  listenerJsonLimitsSchema,
  rawServerConfigSchema,
  type DevConfig,
  type ListenerConfig,
  type ListenerJsonLimits,
  type ListenerPurpose,
  type LogLevel,
  type NatsConfig,
  type ServerConfig,
  type StorageConfig,
} from './server-config.schema';
export {
  hclToRawConfig,
  listenerFor,
  loadServerConfigFile,
  parseServerConfig,
  validateRawConfig,
  type ParseServerConfigOptions,
} from './server-config';
export { configPathFromArgs, loadConfig, type LoadConfigOptions } from './load-config';
export { defineAppConfig, type AppConfigDefinition } from './app-config';
