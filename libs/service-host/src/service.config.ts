import { ENV, defineAppConfig, envValue, listenerFor, type Env, type ServerConfig } from '@coffer/config';
import { z } from 'zod';

/**
 * What every cluster-mode process (gateway and services alike) takes from the server config:
 * NATS, its ops listener, the drain wait, telemetry and the log level. Processes on one host
 * each need their own ops port: COFFER_OPS_LISTEN_ADDRESS overrides the file's ops listener.
 * `natsRequired` is the error shown when there is no NATS URL.
 */
export function clusterProcessSchema(natsRequired: string) {
  return z.object({
    opsAddress: z.string(),
    natsUrl: z.string({ error: natsRequired }),
    subjectPrefix: z.string(),
    gracefulShutdownWaitMs: z.number().int().nonnegative(),
    otlpEndpoint: z.string().optional(),
    logLevel: z.string(),
  });
}

/** The input of clusterProcessSchema, from the server config and the environment. */
export function clusterProcessInput(server: ServerConfig, env: Env) {
  return {
    opsAddress: envValue(env, ENV.opsListenAddress) ?? listenerFor(server, 'ops').address,
    natsUrl: server.nats?.url,
    subjectPrefix: server.nats?.subjectPrefix ?? 'coffer',
    gracefulShutdownWaitMs: server.controller.gracefulShutdownWaitMs,
    otlpEndpoint: server.telemetry.otlpEndpoint,
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
  }),
  (server, env) => ({
    ...clusterProcessInput(server, env),
    databaseUrl: server.storage.type === 'postgresql' ? server.storage.connectionUrl : undefined,
    databaseMaxConnections: server.storage.type === 'postgresql' ? server.storage.maxConnections : 1,
    clusterSecret: server.clusterSecret,
    apiAddr: server.apiAddr,
    pluginDirectory: server.pluginDirectory,
  }),
);
export type ServiceAppConfig = ReturnType<typeof serviceAppConfig.load>;
