import type { LoggerService, LogLevel } from '@nestjs/common';
import type { MountInfo, RouteTable } from '@coffer/contracts';
import type { HealthCheck, ListenerTlsOptions } from '@coffer/service-host';
import type { Transport } from '@coffer/transport';
import type { JsonLimits } from './request/json-limits';

export interface GatewayListenerOptions {
  /** "host:port" ("127.0.0.1:8200", "[::1]:8200"); port 0 picks a free port */
  address: string;
  /** bytes; default 32 MiB (Vault's max_request_size) */
  maxRequestSize?: number;
  /** Vault's max_json_* limits on request bodies; defaults 300 deep, 1 MiB strings, 10 000 entries */
  json?: Partial<JsonLimits>;
  /** PEM certificate and key (plus minimum version and client CA); absent = plain HTTP */
  tls?: ListenerTlsOptions;
}

export interface GatewayCacheOptions {
  /** safety net for missed invalidation broadcasts (default 30 s) */
  maxAgeMs?: number;
  /** seal state is re-read at least this often (default 5 s) */
  sealMaxAgeMs?: number;
  /** bound on cached tokens, ACLs, policies and entities each (default 10 000) */
  maxEntries?: number;
}

export interface GatewayOptions {
  transport: Transport;
  listeners: {
    api: GatewayListenerOptions;
    /** serves GET /health (Boundary-style controller health); optional in dev mode */
    ops?: GatewayListenerOptions;
  };
  /** dependencies /health checks besides the API listener (the apps pass the NATS connection) */
  healthChecks?: Readonly<Record<string, HealthCheck>>;
  /** told when a health check fails */
  onUnhealthy?: (check: string, reason: string) => void;
  /** health answers 503 this long before the API listener closes, requests still served (default 0) */
  gracefulShutdownWaitSeconds?: number;
  /**
   * Nest's logger option (a logger, log levels, or false for silence). Nest applies it
   * process-wide; leave it unset to keep the process's current logger.
   */
  logger?: LoggerService | LogLevel[] | false;
  /** time-out of engine requests (default 10 s, DEFAULT_ENGINE_TIMEOUT_MS) */
  engineTimeoutMs?: number;
  cache?: GatewayCacheOptions;
  /**
   * Bound on the wait for audit devices (default 5 s): a request no device logged within it is
   * refused with 500, so a hanging device never hangs the gateway.
   */
  auditTimeoutMs?: number;
  /**
   * Route table serving a mount, undefined when no engine serves its type (503): the apps pass
   * `routeTableFor` of `@coffer/engines`.
   */
  routeTableFor: (mount: Pick<MountInfo, 'type' | 'options'>) => RouteTable | undefined;
  /**
   * The service that serves a mount type (named in the 503 "no replica" error of a mount no engine
   * serves yet; the type itself when undefined): the apps pass `serviceForMountType` of `@coffer/engines`.
   */
  serviceFor: (mountType: string) => string | undefined;
  /**
   * Vault Enterprise's administrative namespace ("admin"; the server config's
   * `administrative_namespace_path`, or `managed_namespace_root` in managed mode): restricted
   * routes are served there as in the root namespace.
   */
  administrativeNamespace?: string;
}

export const GATEWAY_OPTIONS = Symbol('GATEWAY_OPTIONS');
export const GATEWAY_TRANSPORT = Symbol('GATEWAY_TRANSPORT');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');

export const DEFAULT_ENGINE_TIMEOUT_MS = 10_000;
export const DEFAULT_AUDIT_TIMEOUT_MS = 5_000;

export interface ResolvedCacheOptions {
  maxAgeMs: number;
  sealMaxAgeMs: number;
  maxEntries: number;
}

export function resolveCacheOptions(options: GatewayCacheOptions | undefined): ResolvedCacheOptions {
  return {
    maxAgeMs: options?.maxAgeMs ?? 30_000,
    sealMaxAgeMs: options?.sealMaxAgeMs ?? 5_000,
    maxEntries: options?.maxEntries ?? 10_000,
  };
}

/** Internal lookups (tokens, policies, seal state) should fail fast rather than hold requests. */
export const CORE_LOOKUP_TIMEOUT_MS = 10_000;
