import { defineAppConfig, listenerFor } from '@coffer/config';
import { clusterProcessInput, clusterProcessSchema } from '@coffer/service-host';
import { z } from 'zod';

/**
 * The gateway in cluster mode: the process settings every cluster process shares (NATS, the ops
 * listener, the controller's graceful_shutdown_wait_duration, telemetry, the log level) plus the
 * api listener of the server config file.
 */
export const gatewayConfig = defineAppConfig(
  clusterProcessSchema('the gateway needs a nats block (or COFFER_NATS_URL)').extend({
    api: z.object({
      address: z.string(),
      maxRequestSize: z.number().int().positive(),
      tls: z.object({ certFile: z.string(), keyFile: z.string() }).optional(),
    }),
  }),
  (server, env) => {
    const api = listenerFor(server, 'api');
    return {
      ...clusterProcessInput(server, env),
      api: {
        address: api.address,
        maxRequestSize: api.maxRequestSize,
        tls: api.tlsDisable ? undefined : { certFile: api.tlsCertFile, keyFile: api.tlsKeyFile },
      },
    };
  },
);
export type GatewayAppConfig = ReturnType<typeof gatewayConfig.load>;
