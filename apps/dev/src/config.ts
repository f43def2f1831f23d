import { randomBytes } from 'node:crypto';
import {
  ConfigError,
  clusterAddressOf,
  defineAppConfig,
  listenerFor,
  listenerJsonLimitsSchema,
  type TelemetryConfig,
} from '@coffer/config';
import { z } from 'zod';

/**
 * Dev mode takes no config file: the API listener from COFFER_DEV_LISTEN_ADDRESS (default
 * 127.0.0.1:8200), the ops listener from COFFER_OPS_LISTEN_ADDRESS (127.0.0.1:9203), storage in
 * memory unless COFFER_DEV_DATA_DIR, the root token id from COFFER_DEV_ROOT_TOKEN_ID, the API
 * listener's JSON limits from COFFER_DEV_MAX_JSON_*, the engine time-out from COFFER_ENGINE_TIMEOUT.
 */
export const devAppConfig = defineAppConfig(
  z.object({
    apiAddress: z.string(),
    opsAddress: z.string(),
    maxRequestSize: z.number().int().positive(),
    jsonLimits: listenerJsonLimitsSchema.optional(),
    engineTimeoutMs: z.number().int().positive().optional(),
    auditTimeoutMs: z.number().int().positive().optional(),
    dataDir: z.string().optional(),
    pluginDirectory: z.string().optional(),
    /** managed mode (COFFER_DEV_MANAGED=1): the "admin" namespace, where the printed token lives */
    managedNamespaceRoot: z.string().optional(),
    /** where restricted routes are served besides the root (the managed root in managed mode) */
    administrativeNamespace: z.string().optional(),
    rootTokenId: z.string().min(1).optional(),
    /** engines fetch the keyring from core-sys in-process exactly as in cluster mode */
    clusterSecret: z.string().min(16),
    otlpEndpoint: z.string().optional(),
    telemetry: z.custom<TelemetryConfig>(),
    gracefulShutdownWaitMs: z.number().int().nonnegative(),
    logLevel: z.string(),
    /** replication's cluster listener (COFFER_DEV_CLUSTER_ADDRESS, default 127.0.0.1:8201) */
    cluster: z.object({ listen: z.string(), advertise: z.string() }),
  }),
  (server) => {
    if (server.dev === null) {
      throw new ConfigError([
        'dev mode takes no config file (unset COFFER_CONFIG; use the cluster apps for a file)',
      ]);
    }
    const api = listenerFor(server, 'api');
    return {
      apiAddress: api.address,
      opsAddress: listenerFor(server, 'ops').address,
      maxRequestSize: api.maxRequestSize,
      jsonLimits: api.jsonLimits,
      engineTimeoutMs: server.controller.engineTimeoutMs,
      auditTimeoutMs: server.controller.auditTimeoutMs,
      dataDir: server.dev.dataDir,
      pluginDirectory: server.pluginDirectory,
      managedNamespaceRoot: server.managedNamespaceRoot,
      administrativeNamespace: server.managedNamespaceRoot ?? server.administrativeNamespacePath,
      rootTokenId: server.dev.rootTokenId,
      // One process: a fresh secret per boot is enough and never leaves it.
      clusterSecret: server.clusterSecret ?? randomBytes(32).toString('base64'),
      otlpEndpoint: server.telemetry.otlpEndpoint,
      telemetry: server.telemetry,
      gracefulShutdownWaitMs: server.controller.gracefulShutdownWaitMs,
      logLevel: server.logLevel,
      cluster: clusterAddressOf(server),
    };
  },
);
export type DevAppConfig = ReturnType<typeof devAppConfig.load>;
