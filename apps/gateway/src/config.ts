import { ENV, defineAppConfig, envValue, listenerFor } from '@coffer/config';
import { z } from 'zod';

/**
 * The gateway in cluster mode: the api and ops listeners of the server config file (ops may be
 * moved with COFFER_OPS_LISTEN_ADDRESS, so several processes can share a host), NATS, the
 * controller's graceful_shutdown_wait_duration, telemetry and the log level.
 */
export const gatewayConfig = defineAppConfig(
  z.object({
    api: z.object({
      address: z.string(),
      maxRequestSize: z.number().int().positive(),
      tls: z.object({ certFile: z.string(), keyFile: z.string() }).optional(),
    }),
    opsAddress: z.string(),
    natsUrl: z.string({ error: 'the gateway needs a nats block (or COFFER_NATS_URL)' }),
    subjectPrefix: z.string(),
    gracefulShutdownWaitMs: z.number().int().nonnegative(),
    otlpEndpoint: z.string().optional(),
    logLevel: z.string(),
  }),
  (server, env) => {
    const api = listenerFor(server, 'api');
    return {
      api: {
        address: api.address,
        maxRequestSize: api.maxRequestSize,
        tls: api.tlsDisable ? undefined : { certFile: api.tlsCertFile, keyFile: api.tlsKeyFile },
      },
      opsAddress: envValue(env, ENV.opsListenAddress) ?? listenerFor(server, 'ops').address,
      natsUrl: server.nats?.url,
      subjectPrefix: server.nats?.subjectPrefix ?? 'coffer',
      gracefulShutdownWaitMs: server.controller.gracefulShutdownWaitMs,
      otlpEndpoint: server.telemetry.otlpEndpoint,
      logLevel: server.logLevel,
    };
  },
);
export type GatewayAppConfig = ReturnType<typeof gatewayConfig.load>;
