import 'reflect-metadata';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { routeTableFor, serviceForMountType } from '@coffer/engines';
import { createGateway } from '@coffer/gateway';
import {
  loadListenerTls,
  nestLogLevels,
  runMain,
  runWithShutdown,
  unhealthyLogger,
  type ShutdownSequence,
} from '@coffer/service-host';
import { startTelemetry } from '@coffer/telemetry';
import { connectNatsTransport } from '@coffer/transport';
import { gatewayConfig, type GatewayAppConfig } from './config';

/** The HTTP gateway in cluster mode: /v1 on the api listener, /health on the ops listener. */
async function main(): Promise<void> {
  const config = gatewayConfig.loadOrExit();
  const logger = new Logger('coffer-gateway');
  await runWithShutdown(logger, (shutdown) => start(config, logger, shutdown));
}

async function start(config: GatewayAppConfig, logger: Logger, shutdown: ShutdownSequence): Promise<void> {
  // Read before connecting anything: an unreadable certificate is a configuration error.
  const apiTls = config.api.tls ? loadListenerTls(config.api.tls) : undefined;
  const opsTls = config.opsTls ? loadListenerTls(config.opsTls) : undefined;
  const name = `gateway-${hostname()}-${process.pid}`;
  const telemetry = startTelemetry({
    serviceName: 'coffer-gateway',
    otlpEndpoint: config.otlpEndpoint,
    settings: config.telemetry,
    instanceId: name,
  });
  shutdown.add('telemetry', () => telemetry.shutdown());
  const transport = await connectNatsTransport({
    servers: config.natsUrl.split(',').map((s) => s.trim()),
    subjectPrefix: config.subjectPrefix,
    name,
  });
  shutdown.add('transport', () => transport.close());
  const gateway = createGateway({
    transport,
    routeTableFor,
    serviceFor: serviceForMountType,
    listeners: {
      api: {
        address: config.api.address,
        maxRequestSize: config.api.maxRequestSize,
        ...(config.api.jsonLimits ? { json: config.api.jsonLimits } : {}),
        ...(apiTls ? { tls: apiTls } : {}),
      },
      ops: { address: config.opsAddress, ...(opsTls ? { tls: opsTls } : {}) },
    },
    healthChecks: { nats: () => transport.connected },
    onUnhealthy: unhealthyLogger(logger),
    gracefulShutdownWaitSeconds: config.gracefulShutdownWaitMs / 1000,
    ...(config.engineTimeoutMs === undefined ? {} : { engineTimeoutMs: config.engineTimeoutMs }),
    ...(config.auditTimeoutMs === undefined ? {} : { auditTimeoutMs: config.auditTimeoutMs }),
    logger: nestLogLevels(config.logLevel),
    ...(config.administrativeNamespace === undefined
      ? {}
      : { administrativeNamespace: config.administrativeNamespace }),
  });
  // Registered last so that it runs first: health turns 503, the grace period, in-flight
  // requests finish; only then does the bus close.
  shutdown.add('gateway', () => gateway.close());
  await gateway.listen();
  logger.log(
    `${name} serving ${gateway.apiAddress}/v1 (NATS ${config.natsUrl}), ops on ${gateway.opsAddress ?? '-'}`,
  );
}

runMain(main);
