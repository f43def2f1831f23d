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
  TLS_VERSIONS,
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
  type TlsVersionName,
} from './server-config.schema';
export {
  clusterAddressOf,
  hclToRawConfig,
  listenerFor,
  loadServerConfigFile,
  requireClusterBlocks,
  parseServerConfig,
  validateRawConfig,
  type ParseServerConfigOptions,
} from './server-config';
export { configPathFromArgs, loadConfig, type LoadConfigOptions } from './load-config';
export { defineAppConfig, type AppConfigDefinition } from './app-config';
export type { TelemetryConfig } from './server-config.schema';
