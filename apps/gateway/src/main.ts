import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Logger, type LogLevel } from '@nestjs/common';
import { createGateway } from '@coffer/gateway';
import { startTelemetry } from '@coffer/telemetry';
import { connectNatsTransport } from '@coffer/transport';
import { gatewayConfig } from './config';

/** The HTTP gateway in cluster mode: /v1 on the api listener, /health on the ops listener. */
async function main(): Promise<void> {
  const config = gatewayConfig.loadOrExit();
  const logger = new Logger('coffer-gateway');
  const name = `gateway-${hostname()}-${process.pid}`;
  const telemetry = startTelemetry({ serviceName: 'coffer-gateway', otlpEndpoint: config.otlpEndpoint });
  const transport = await connectNatsTransport({
    servers: config.natsUrl.split(',').map((s) => s.trim()),
    subjectPrefix: config.subjectPrefix,
    name,
  });
  const { tls } = config.api;
  const gateway = createGateway({
    transport,
    listeners: {
      api: {
        address: config.api.address,
        maxRequestSize: config.api.maxRequestSize,
        ...(tls ? { tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } } : {}),
      },
      ops: { address: config.opsAddress },
    },
    gracefulShutdownWaitSeconds: config.gracefulShutdownWaitMs / 1000,
    logger: nestLogLevels(config.logLevel),
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      logger.error(`${signal} again: exiting without finishing the shutdown`);
      process.exit(1);
    }
    stopping = true;
    logger.log(`${signal}: shutting down`);
    // Gateway first (health turns 503, the grace period, in-flight requests finish), then the bus.
    gateway
      .close()
      .then(() => transport.close())
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await gateway.listen();
  logger.log(
    `${name} serving ${gateway.apiAddress}/v1 (NATS ${config.natsUrl}), ops on ${gateway.opsAddress ?? '-'}`,
  );
}

/** Vault-style log_level to Nest's levels. */
function nestLogLevels(level: string): LogLevel[] {
  const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  const from = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 }[level] ?? 2;
  return order.slice(from);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
