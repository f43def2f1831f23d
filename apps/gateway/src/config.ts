import { defineAppConfig, listenerFor, listenerJsonLimitsSchema } from '@coffer/config';
import {
  clusterProcessInput,
  clusterProcessSchema,
  listenerTlsConfig,
  listenerTlsSchema,
} from '@coffer/service-host';
import { z } from 'zod';

/**
 * The gateway in cluster mode: the process settings every cluster process shares (NATS, the ops
 * listener, the controller's graceful_shutdown_wait_duration, telemetry, the log level) plus the
 * api listener of the server config file (with its max_json_* limits) and the controller's
 * engine_timeout (COFFER_ENGINE_TIMEOUT).
 */
export const gatewayConfig = defineAppConfig(
  clusterProcessSchema('the gateway needs a nats block (or COFFER_NATS_URL)').extend({
    api: z.object({
      address: z.string(),
      maxRequestSize: z.number().int().positive(),
      tls: listenerTlsSchema.optional(),
      jsonLimits: listenerJsonLimitsSchema.optional(),
    }),
    engineTimeoutMs: z.number().int().positive().optional(),
    auditTimeoutMs: z.number().int().positive().optional(),
    /** restricted routes are served here besides the root (managed_namespace_root or administrative_namespace_path) */
    administrativeNamespace: z.string().optional(),
  }),
  (server, env) => {
    // first: it reports every missing block and listener at once
    const process = clusterProcessInput(server, env);
    const api = listenerFor(server, 'api');
    return {
      ...process,
      api: {
        address: api.address,
        maxRequestSize: api.maxRequestSize,
        tls: listenerTlsConfig(api),
        jsonLimits: api.jsonLimits,
      },
      engineTimeoutMs: server.controller.engineTimeoutMs,
      auditTimeoutMs: server.controller.auditTimeoutMs,
      administrativeNamespace: server.managedNamespaceRoot ?? server.administrativeNamespacePath,
    };
  },
);
export type GatewayAppConfig = ReturnType<typeof gatewayConfig.load>;
