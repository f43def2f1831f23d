// Everything a cluster-mode service app (apps/core-sys, apps/kv, ...) does besides naming its
// feature module: config, telemetry, pool, migrations, NATS, barrier, ops listener, drain.
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Barrier, KeyringClient } from '@coffer/barrier';
import { createPgDb, migrateSchema, pingPostgres, type ServiceRuntime } from '@coffer/event-store';
import { startTelemetry } from '@coffer/telemetry';
import { connectNatsTransport, createServiceApp } from '@coffer/transport';
import type { EngineDescriptor, EngineHost } from './engine-descriptor';
import { nestLogLevels } from './log-level';
import { startOpsServer, type HealthCheck } from './ops-server';
import { serveOpsMetrics } from './ops-metrics';
import { loadListenerTls } from './listener-tls';
import { serviceAppConfig, type ServiceAppConfig } from './service.config';
import { runWithShutdown, type ShutdownSequence } from './shutdown';

/** What the composition hands a cluster-mode replica besides its descriptor (`runEngine` of `@coffer/engines`). */
export type ClusterServiceHosting = Pick<EngineHost, 'mountCatalogue'>;

/**
 * Boots one replica of a service and serves until SIGINT / SIGTERM, then drains and releases
 * everything in reverse order. Exits 2 on invalid configuration and 1 when start-up fails.
 */
export async function runClusterService(
  spec: EngineDescriptor,
  hosting: ClusterServiceHosting,
): Promise<void> {
  const config = serviceAppConfig.loadOrExit();
  const logger = new Logger(`coffer-${spec.name}`);
  await runWithShutdown(logger, (shutdown) => start(spec, hosting, config, logger, shutdown));
}

async function start(
  spec: EngineDescriptor,
  hosting: ClusterServiceHosting,
  config: ServiceAppConfig,
  logger: Logger,
  shutdown: ShutdownSequence,
): Promise<void> {
  const instanceId = `${spec.name}-${hostname()}-${process.pid}`;
  // First up, last down: /health answers 503 until the service serves and again while it stops.
  // Filled in as the dependencies come up; /health says 503 until markServing anyway.
  const checks: Record<string, HealthCheck> = {};
  const ops = await startOpsServer(config.opsAddress, {
    checks,
    ...(config.opsTls ? { tls: loadListenerTls(config.opsTls) } : {}),
    onUnhealthy: unhealthyLogger(logger),
  });
  ops.route('/metrics', serveOpsMetrics);
  shutdown.add('ops listener', () => ops.close());
  const telemetry = startTelemetry({
    serviceName: `coffer-${spec.name}`,
    otlpEndpoint: config.otlpEndpoint,
    settings: config.telemetry,
    instanceId,
  });
  shutdown.add('telemetry', () => telemetry.shutdown());

  const database = createPgDb(config.databaseUrl, {
    max: config.databaseMaxConnections,
    applicationName: instanceId,
    onError: (error) => logger.warn(`idle database connection failed: ${error.message}`),
  });
  shutdown.add('database', () => database.close());
  checks.postgres = () => pingPostgres(config.databaseUrl);
  await migrateSchema(database.db, spec.schema, spec.migrations);
  const transport = await connectNatsTransport({
    servers: config.natsUrl.split(',').map((s) => s.trim()),
    subjectPrefix: config.subjectPrefix,
    name: instanceId,
  });
  shutdown.add('transport', () => transport.close());
  checks.nats = () => transport.connected;

  let barrier: Barrier;
  if (spec.cipher === 'keyring') {
    const keyring = new KeyringClient({
      transport,
      clusterSecret: config.clusterSecret,
      service: spec.name,
    });
    await keyring.start();
    shutdown.add('keyring', () => keyring.stop());
    barrier = keyring.barrier;
  } else {
    // Starts sealed: sys/unseal loads the keyring into it, sys/seal wipes it.
    barrier = new Barrier();
    shutdown.add('barrier', () => barrier.wipe());
  }

  const runtime: ServiceRuntime = {
    db: database.db,
    schema: spec.schema,
    transport,
    cipher: barrier,
    clock: () => new Date(),
  };
  const host: EngineHost = {
    instanceId,
    clusterSecret: config.clusterSecret,
    apiAddr: config.apiAddr,
    cluster: config.cluster,
    mountCatalogue: hosting.mountCatalogue,
    ...(config.pluginDirectory === undefined ? {} : { pluginDirectory: config.pluginDirectory }),
    pluginTransport: { kind: 'nats', servers: config.natsUrl, subjectPrefix: config.subjectPrefix },
  };
  const app = await createServiceApp(spec.module(runtime, host), transport, spec.name, {
    logger: nestLogLevels(config.logLevel),
  });
  shutdown.add('app', () => app.close());
  // Runs before the app closes: stop taking requests, let the ones already taken answer.
  shutdown.add('drain', () => transport.close());
  shutdown.add('stop serving', async () => {
    ops.beginShutdown();
    if (config.gracefulShutdownWaitMs > 0) await delay(config.gracefulShutdownWaitMs);
  });
  ops.markServing();
  logger.log(
    `${instanceId} serving on ${config.natsUrl} (prefix "${config.subjectPrefix}"), ops on ${ops.address}`,
  );
}

/** Logs a failing health check at most once a minute per check: probes come every few seconds. */
export function unhealthyLogger(logger: Pick<Logger, 'warn'>): (check: string, reason: string) => void {
  const last = new Map<string, number>();
  return (check, reason) => {
    const now = Date.now();
    if (now - (last.get(check) ?? -Infinity) < 60_000) return;
    last.set(check, now);
    logger.warn(`/health: ${check} is unhealthy (${reason})`);
  };
}
