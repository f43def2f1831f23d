import {
  ENV,
  clusterAddressOf,
  defineAppConfig,
  envValue,
  listenerFor,
  requireClusterBlocks,
  type Env,
  type ServerConfig,
  type TelemetryConfig,
} from '@coffer/config';
import { z } from 'zod';
import { listenerTlsConfig, listenerTlsSchema } from './listener-tls';

/**
 * What every cluster-mode process (gateway and services alike) takes from the server config:
 * NATS, its ops listener, the drain wait, telemetry and the log level. Processes on one host
 * each need their own ops port: COFFER_OPS_LISTEN_ADDRESS overrides the file's ops listener.
 * `natsRequired` is the error shown when there is no NATS URL.
 */
export function clusterProcessSchema(natsRequired: string) {
  return z.object({
    opsAddress: z.string(),
    /** the ops listener's TLS (tls_cert_file, ...); absent = plain HTTP */
    opsTls: listenerTlsSchema.optional(),
    natsUrl: z.string({ error: natsRequired }),
    subjectPrefix: z.string(),
    gracefulShutdownWaitMs: z.number().int().nonnegative(),
    otlpEndpoint: z.string().optional(),
    /** the whole telemetry block (sampling, protocol, resource), validated by the server schema */
    telemetry: z.custom<TelemetryConfig>(),
    logLevel: z.string(),
  });
}

/** The input of clusterProcessSchema, from the server config and the environment. */
export function clusterProcessInput(server: ServerConfig, env: Env) {
  requireClusterBlocks(server);
  const ops = listenerFor(server, 'ops');
  return {
    opsAddress: envValue(env, ENV.opsListenAddress) ?? ops.address,
    opsTls: listenerTlsConfig(ops),
    natsUrl: server.nats?.url,
    subjectPrefix: server.nats?.subjectPrefix ?? 'coffer',
    gracefulShutdownWaitMs: server.controller.gracefulShutdownWaitMs,
    otlpEndpoint: server.telemetry.otlpEndpoint,
    telemetry: server.telemetry,
    logLevel: server.logLevel,
  };
}

/**
 * A cluster-mode service (core-sys, kv, ...): the process settings plus Postgres and the cluster
 * secret from the server config file (or the COFFER_DATABASE_URL / COFFER_NATS_URL /
 * COFFER_CLUSTER_SECRET overrides).
 */
export const serviceAppConfig = defineAppConfig(
  clusterProcessSchema('cluster mode needs a nats block (or COFFER_NATS_URL)').extend({
    databaseUrl: z.string({ error: 'cluster mode needs storage "postgresql" (or COFFER_DATABASE_URL)' }),
    databaseMaxConnections: z.number().int().min(1),
    clusterSecret: z.string({ error: 'cluster_secret is required (or COFFER_CLUSTER_SECRET)' }).min(16),
    /** advertised API address (core-sys: OIDC issuer, replication later) */
    apiAddr: z.string({ error: 'api_addr is required when no api listener is configured' }),
    pluginDirectory: z.string().optional(),
    /** replication's cluster listener (listener purpose "cluster", cluster_addr) */
    cluster: z.object({ listen: z.string(), advertise: z.string() }),
  }),
  (server, env) => ({
    ...clusterProcessInput(server, env),
    databaseUrl: server.storage.type === 'postgresql' ? server.storage.connectionUrl : undefined,
    databaseMaxConnections: server.storage.type === 'postgresql' ? server.storage.maxConnections : 1,
    clusterSecret: server.clusterSecret,
    apiAddr: server.apiAddr,
    pluginDirectory: server.pluginDirectory,
    cluster: clusterAddressOf(server),
  }),
);
export type ServiceAppConfig = ReturnType<typeof serviceAppConfig.load>;
