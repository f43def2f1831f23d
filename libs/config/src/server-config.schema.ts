import { z } from 'zod';
import { parseDuration, parseDurationMs } from '@coffer/contracts';

/**
 * The server configuration file (HCL, Vault/Boundary style), as a zod schema over the file's own
 * snake_case keys; the parsed output is the camelCase ServerConfig every app reads.
 */

export const DEFAULT_MAX_REQUEST_SIZE = 32 * 1024 * 1024;
export const DEFAULT_LEASE_TTL = 32 * 24 * 3600; // Vault's 768h
export const LISTENER_PURPOSES = ['api', 'ops', 'cluster'] as const;
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type ListenerPurpose = (typeof LISTENER_PURPOSES)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Vault's tls_min_version values and the Node names they map to. */
export const TLS_VERSIONS = { tls10: 'TLSv1', tls11: 'TLSv1.1', tls12: 'TLSv1.2', tls13: 'TLSv1.3' } as const;
export type TlsVersionName = (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];

/** Vault reads booleans leniently (parseutil.ParseBool): true/false, "true"/"false", "1"/"0". */
const boolish = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', '1', 't'].includes(s)) return true;
  if (['false', '0', 'f'].includes(s)) return false;
  return v;
}, z.boolean());

/** A duration ("30s", "1h", 90) converted with Vault's rules; errors become issues. */
const duration = (convert: (v: string | number) => number) =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    try {
      return convert(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `invalid duration: ${(e as Error).message}` });
      return z.NEVER;
    }
  });

const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^:/\s[\]]+):([0-9]{1,5})$/, 'must be host:port, e.g. "127.0.0.1:8200"')
  .refine((a) => Number(a.slice(a.lastIndexOf(':') + 1)) <= 65535, 'port must be at most 65535');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

const positiveInt = z.number().int().positive();

/**
 * Vault's JSON limits on request bodies (its newer listener settings); unset = Vault's defaults
 * (300 deep, 1 MiB strings, 10 000 object entries, 10 000 array elements), applied by the gateway.
 */
const JSON_LIMIT_KEYS = {
  max_json_depth: 'maxDepth',
  max_json_string_value_length: 'maxStringValueLength',
  max_json_object_entry_count: 'maxObjectEntryCount',
  max_json_array_element_count: 'maxArrayElementCount',
} as const;

/** The limits as apps read them (camelCase, each optional); also the apps' config schema for them. */
export const listenerJsonLimitsSchema = z.object({
  maxDepth: positiveInt.optional(),
  maxStringValueLength: positiveInt.optional(),
  maxObjectEntryCount: positiveInt.optional(),
  maxArrayElementCount: positiveInt.optional(),
});
export type ListenerJsonLimits = z.output<typeof listenerJsonLimitsSchema>;

const listenerSchema = z
  .strictObject({
    type: z.literal('tcp', { error: 'only "tcp" listeners are supported' }),
    address: hostPort,
    purpose: z
      .union([z.enum(LISTENER_PURPOSES), z.array(z.enum(LISTENER_PURPOSES)).min(1)])
      .default('api')
      .transform((p) => (Array.isArray(p) ? [...new Set(p)] : [p])),
    tls_disable: boolish.default(false),
    tls_cert_file: z.string().min(1).optional(),
    tls_key_file: z.string().min(1).optional(),
    /** Vault: tls10 | tls11 | tls12 (default) | tls13 */
    tls_min_version: z
      .enum(['tls10', 'tls11', 'tls12', 'tls13'], {
        error: 'tls_min_version must be one of tls10, tls11, tls12, tls13',
      })
      .default('tls12'),
    /** PEM CA bundle: clients presenting a certificate must present one it signed */
    tls_client_ca_file: z.string().min(1).optional(),
    /** Vault: with tls_client_ca_file, refuse clients that present no certificate */
    tls_require_and_verify_client_cert: boolish.default(false),
    /** Vault: 0 or unset = 32 MiB, negative = no limit */
    max_request_size: z.number().int().default(0),
    max_json_depth: positiveInt.optional(),
    max_json_string_value_length: positiveInt.optional(),
    max_json_object_entry_count: positiveInt.optional(),
    max_json_array_element_count: positiveInt.optional(),
  })
  .superRefine((l, ctx) => {
    // the cluster listener (replication) authenticates with pre-shared keys: TLS-PSK, no certificate
    const clusterOnly = l.purpose.every((p) => p === 'cluster');
    if (!l.tls_disable && !clusterOnly && (!l.tls_cert_file || !l.tls_key_file)) {
      ctx.addIssue({
        code: 'custom',
        message: 'tls_cert_file and tls_key_file are required unless tls_disable = true',
        path: ['tls_disable'],
      });
    }
    if (l.tls_require_and_verify_client_cert && !l.tls_client_ca_file) {
      ctx.addIssue({
        code: 'custom',
        message: 'tls_require_and_verify_client_cert needs tls_client_ca_file',
        path: ['tls_require_and_verify_client_cert'],
      });
    }
  })
  .transform((l) => ({
    ...jsonLimitsOf(l),
    type: l.type,
    address: l.address,
    purpose: l.purpose,
    tlsDisable: l.tls_disable,
    tlsCertFile: l.tls_cert_file,
    tlsKeyFile: l.tls_key_file,
    tlsMinVersion: TLS_VERSIONS[l.tls_min_version],
    tlsClientCaFile: l.tls_client_ca_file,
    tlsRequireClientCert: l.tls_require_and_verify_client_cert,
    maxRequestSize:
      l.max_request_size === 0
        ? DEFAULT_MAX_REQUEST_SIZE
        : l.max_request_size < 0
          ? Number.MAX_SAFE_INTEGER
          : l.max_request_size,
  }));

function jsonLimitsOf(l: Partial<Record<keyof typeof JSON_LIMIT_KEYS, number>>): {
  jsonLimits?: ListenerJsonLimits;
} {
  const limits: ListenerJsonLimits = {};
  for (const [key, name] of Object.entries(JSON_LIMIT_KEYS) as [keyof typeof JSON_LIMIT_KEYS, string][]) {
    const value = l[key];
    if (value !== undefined) limits[name as keyof ListenerJsonLimits] = value;
  }
  return Object.keys(limits).length === 0 ? {} : { jsonLimits: limits };
}

const storageSchema = z.discriminatedUnion(
  'type',
  [
    z
      .strictObject({
        type: z.literal('postgresql'),
        connection_url: z
          .string({ error: 'connection_url is required (or set COFFER_DATABASE_URL)' })
          .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL'),
        max_connections: z.number().int().min(1).default(10),
      })
      .transform((s) => ({
        type: s.type,
        connectionUrl: s.connection_url,
        maxConnections: s.max_connections,
      })),
    z
      .strictObject({
        type: z.literal('pglite'),
        /** absent = in memory */
        path: z.string().min(1).optional(),
      })
      .transform((s): { type: 'pglite'; path?: string } => (s.path === undefined ? { type: s.type } : s)),
  ],
  { error: 'storage must be "postgresql" or "pglite"' },
);

const natsSchema = z
  .strictObject({
    url: z
      .string({ error: 'url is required (or set COFFER_NATS_URL)' })
      .regex(
        /^(nats|tls|wss?):\/\/[^,\s]+(,\s*(nats|tls|wss?):\/\/[^,\s]+)*$/,
        'must be a nats:// URL (comma-separate several servers)',
      ),
    subject_prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be NATS subject tokens separated by dots')
      .default('coffer'),
  })
  .transform((n) => ({ url: n.url, subjectPrefix: n.subject_prefix }));

const controllerSchema = z
  .strictObject({
    graceful_shutdown_wait_duration: duration(parseDurationMs).default(0),
    /** how long the gateway waits for an engine's answer (unset: the gateway's default, 10 s) */
    engine_timeout: duration(parseDurationMs)
      .refine((ms) => ms > 0, 'engine_timeout must be positive')
      .optional(),
    /** how long the gateway waits for its audit devices before refusing a request (default 5 s) */
    audit_timeout: duration(parseDurationMs)
      .refine((ms) => ms > 0, 'audit_timeout must be positive')
      .optional(),
  })
  .transform((c): { gracefulShutdownWaitMs: number; engineTimeoutMs?: number; auditTimeoutMs?: number } => ({
    gracefulShutdownWaitMs: c.graceful_shutdown_wait_duration,
    ...(c.engine_timeout === undefined ? {} : { engineTimeoutMs: c.engine_timeout }),
    ...(c.audit_timeout === undefined ? {} : { auditTimeoutMs: c.audit_timeout }),
  }));

const ratio = z.coerce.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

/** "k=v,k2=v2" (OTEL_RESOURCE_ATTRIBUTES, values percent-encoded) or an HCL map of strings. */
const resourceAttributes = z.union([z.record(z.string(), z.string()), z.string()]).transform((v, ctx) => {
  if (typeof v !== 'string') return v;
  const out: Record<string, string> = {};
  for (const entry of v.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = at < 0 ? '' : entry.slice(0, at).trim();
    let value: string | undefined;
    try {
      value = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (key === '' || value === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `invalid resource attribute "${entry.trim()}" (expected key=value)`,
      });
      return z.NEVER;
    }
    out[key] = value;
  }
  return out;
});

/** The telemetry block's output: only what was set (defaults live in @coffer/telemetry). */
export interface TelemetryConfig {
  otlpEndpoint?: string;
  otlpProtocol?: 'http/protobuf' | 'http/json';
  sampleRatio?: number;
  jobSampleRatio?: number;
  serviceName?: string;
  resourceAttributes?: Record<string, string>;
}

const telemetrySchema = z
  .strictObject({
    otlp_endpoint: httpUrl.optional(),
    otlp_protocol: z
      .enum(['http/protobuf', 'http/json'], { error: 'otlp_protocol must be "http/protobuf" or "http/json"' })
      .optional(),
    trace_sample_ratio: ratio.optional(),
    job_trace_sample_ratio: ratio.optional(),
    service_name: z.string().min(1).optional(),
    resource_attributes: resourceAttributes.optional(),
    /** Vault's telemetry keys, accepted so Vault config files load; Prometheus is always on here */
    prometheus_retention_time: z.union([z.string(), z.number()]).optional(),
    disable_hostname: boolish.optional(),
  })
  .transform((t): TelemetryConfig => ({
    ...(t.otlp_endpoint === undefined ? {} : { otlpEndpoint: t.otlp_endpoint }),
    ...(t.otlp_protocol === undefined ? {} : { otlpProtocol: t.otlp_protocol }),
    ...(t.trace_sample_ratio === undefined ? {} : { sampleRatio: t.trace_sample_ratio }),
    ...(t.job_trace_sample_ratio === undefined ? {} : { jobSampleRatio: t.job_trace_sample_ratio }),
    ...(t.service_name === undefined ? {} : { serviceName: t.service_name }),
    ...(t.resource_attributes === undefined ? {} : { resourceAttributes: t.resource_attributes }),
  }));

const serviceSchema = z.strictObject({ replicas: z.number().int().min(0).default(1) });

const devSchema = z
  .strictObject({
    root_token_id: z.string().min(1).optional(),
    data_dir: z.string().min(1).optional(),
    cluster_address: hostPort.optional(),
  })
  .transform((d): { rootTokenId?: string; dataDir?: string; clusterAddress?: string } => ({
    ...(d.root_token_id === undefined ? {} : { rootTokenId: d.root_token_id }),
    ...(d.data_dir === undefined ? {} : { dataDir: d.data_dir }),
    ...(d.cluster_address === undefined ? {} : { clusterAddress: d.cluster_address }),
  }));

export const rawServerConfigSchema = z
  .strictObject({
    listener: z.array(listenerSchema).default([]),
    storage: storageSchema.prefault({ type: 'pglite' }),
    nats: natsSchema.optional(),
    cluster_secret: z.string().min(16, 'cluster_secret must be at least 16 characters').optional(),
    cluster_name: z.string().min(1).optional(),
    /** where external plugin commands live (sys/plugins/catalog) */
    plugin_directory: z.string().min(1).optional(),
    /** Vault Enterprise: the namespace where restricted routes are served besides the root */
    administrative_namespace_path: z.string().min(1).optional(),
    /** managed mode (HCP): the top-level namespace every client works in, e.g. "admin" */
    managed_namespace_root: z.string().min(1).optional(),
    api_addr: httpUrl.optional(),
    /** the cluster address given to replication secondaries (default: the cluster listener's) */
    cluster_addr: hostPort.optional(),
    controller: controllerSchema.optional(),
    telemetry: telemetrySchema.prefault({}),
    service: z
      .record(z.string().regex(/^[a-z][a-z0-9-]*$/, 'service names are lower-case'), serviceSchema)
      .default({}),
    log_level: z
      .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(LOG_LEVELS))
      .default('info'),
    default_lease_ttl: duration(parseDuration).default(DEFAULT_LEASE_TTL),
    max_lease_ttl: duration(parseDuration).default(DEFAULT_LEASE_TTL),
    ui: boolish.default(false),
    /** accepted for compatibility with Vault config files; irrelevant here */
    disable_mlock: boolish.optional(),
    /** set by dev mode only (no config file) */
    dev: devSchema.optional(),
  })
  .transform((c) => {
    const api = c.listener.find((l) => l.purpose.includes('api'));
    const apiAddr = c.api_addr ?? (api ? `${api.tlsDisable ? 'http' : 'https'}://${api.address}` : undefined);
    return {
      dev: c.dev ?? null,
      listeners: c.listener,
      storage: c.storage,
      ...(c.nats ? { nats: c.nats } : {}),
      ...(c.cluster_secret === undefined ? {} : { clusterSecret: c.cluster_secret }),
      ...(c.cluster_name === undefined ? {} : { clusterName: c.cluster_name }),
      ...(c.plugin_directory === undefined ? {} : { pluginDirectory: c.plugin_directory }),
      ...(c.administrative_namespace_path === undefined
        ? {}
        : { administrativeNamespacePath: c.administrative_namespace_path }),
      ...(c.managed_namespace_root === undefined ? {} : { managedNamespaceRoot: c.managed_namespace_root }),
      ...(apiAddr === undefined ? {} : { apiAddr }),
      ...(c.cluster_addr === undefined ? {} : { clusterAddr: c.cluster_addr }),
      controller: c.controller ?? controllerSchema.parse({}),
      /** whether the file has a controller block (cluster processes require one) */
      controllerDefined: c.controller !== undefined,
      telemetry: c.telemetry,
      services: c.service,
      logLevel: c.log_level,
      defaultLeaseTtl: c.default_lease_ttl,
      maxLeaseTtl: c.max_lease_ttl,
      ui: c.ui,
    };
  });

export type ListenerConfig = z.output<typeof listenerSchema>;
export type StorageConfig = z.output<typeof storageSchema>;
export type NatsConfig = z.output<typeof natsSchema>;
export type DevConfig = z.output<typeof devSchema>;

/** The validated server configuration (file + environment overrides, or dev defaults). */
export type ServerConfig = z.output<typeof rawServerConfigSchema> & {
  /** the config file it came from; absent in dev mode */
  source?: string;
};
