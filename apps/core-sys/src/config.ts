import { ENV, defineAppConfig, envValue, listenerFor } from '@coffer/config';
import { z } from 'zod';

/**
 * A cluster-mode service: Postgres and NATS from the server config file (or the
 * COFFER_DATABASE_URL / COFFER_NATS_URL / COFFER_CLUSTER_SECRET overrides). Processes on one
 * host each need their own ops port: COFFER_OPS_LISTEN_ADDRESS overrides the file's ops listener.
 * (Identical in apps/core-sys and apps/kv.)
 */
export const serviceAppConfig = defineAppConfig(
  z.object({
    databaseUrl: z.string({ error: 'cluster mode needs storage "postgresql" (or COFFER_DATABASE_URL)' }),
    databaseMaxConnections: z.number().int().min(1),
    natsUrl: z.string({ error: 'cluster mode needs a nats block (or COFFER_NATS_URL)' }),
    subjectPrefix: z.string(),
    clusterSecret: z.string({ error: 'cluster_secret is required (or COFFER_CLUSTER_SECRET)' }).min(16),
    opsAddress: z.string(),
    otlpEndpoint: z.string().optional(),
    gracefulShutdownWaitMs: z.number().int().nonnegative(),
    logLevel: z.string(),
    /** advertised API address (core-sys: OIDC issuer, replication later) */
    apiAddr: z.string({ error: 'api_addr is required when no api listener is configured' }),
  }),
  (server, env) => ({
    databaseUrl: server.storage.type === 'postgresql' ? server.storage.connectionUrl : undefined,
    databaseMaxConnections: server.storage.type === 'postgresql' ? server.storage.maxConnections : 1,
    natsUrl: server.nats?.url,
    subjectPrefix: server.nats?.subjectPrefix ?? 'coffer',
    clusterSecret: server.clusterSecret,
    opsAddress: envValue(env, ENV.opsListenAddress) ?? listenerFor(server, 'ops').address,
    otlpEndpoint: server.telemetry.otlpEndpoint,
    gracefulShutdownWaitMs: server.controller.gracefulShutdownWaitMs,
    logLevel: server.logLevel,
    apiAddr: server.apiAddr,
  }),
);
export type ServiceAppConfig = ReturnType<typeof serviceAppConfig.load>;
