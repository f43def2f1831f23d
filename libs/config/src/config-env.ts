/** The environment as given to config loaders (process.env is read only by readProcessEnv). */
export type Env = Readonly<Record<string, string | undefined>>;

export const ENV = {
  config: 'COFFER_CONFIG',
  natsUrl: 'COFFER_NATS_URL',
  databaseUrl: 'COFFER_DATABASE_URL',
  clusterSecret: 'COFFER_CLUSTER_SECRET',
  pluginDirectory: 'COFFER_PLUGIN_DIRECTORY',
  apiAddr: 'COFFER_API_ADDR',
  otlpEndpoint: 'COFFER_OTLP_ENDPOINT',
  subjectPrefix: 'COFFER_SUBJECT_PREFIX',
  logLevel: 'COFFER_LOG_LEVEL',
  devListenAddress: 'COFFER_DEV_LISTEN_ADDRESS',
  opsListenAddress: 'COFFER_OPS_LISTEN_ADDRESS',
  devRootTokenId: 'COFFER_DEV_ROOT_TOKEN_ID',
  devManaged: 'COFFER_DEV_MANAGED',
  devDataDir: 'COFFER_DEV_DATA_DIR',
  engineTimeout: 'COFFER_ENGINE_TIMEOUT',
  devMaxJsonDepth: 'COFFER_DEV_MAX_JSON_DEPTH',
  devMaxJsonStringValueLength: 'COFFER_DEV_MAX_JSON_STRING_VALUE_LENGTH',
  devMaxJsonObjectEntryCount: 'COFFER_DEV_MAX_JSON_OBJECT_ENTRY_COUNT',
  devMaxJsonArrayElementCount: 'COFFER_DEV_MAX_JSON_ARRAY_ELEMENT_COUNT',
  otelServiceName: 'OTEL_SERVICE_NAME',
  otelResourceAttributes: 'OTEL_RESOURCE_ATTRIBUTES',
  otelProtocol: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  otelTracesProtocol: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  otelSampler: 'OTEL_TRACES_SAMPLER',
  otelSamplerArg: 'OTEL_TRACES_SAMPLER_ARG',
  devClusterAddress: 'COFFER_DEV_CLUSTER_ADDRESS',
} as const;

export const DEV_LISTEN_ADDRESS = '127.0.0.1:8200';
export const OPS_LISTEN_ADDRESS = '127.0.0.1:9203';
/** Vault's cluster port: where a replication primary listens for its secondaries */
export const DEV_CLUSTER_ADDRESS = '127.0.0.1:8201';

/** This library is the one place allowed to read process.env. */
export function readProcessEnv(): Env {
  return { ...process.env };
}

/** Empty values count as unset (docker-compose and shells often export empty variables). */
export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

type Raw = Record<string, unknown>;

const asRecord = (v: unknown): Raw | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : undefined;

/**
 * Applies COFFER_* overrides to the raw (file-shaped, snake_case) configuration before it is
 * validated, so values coming from the environment are checked like file values.
 */
export function applyEnvOverrides(raw: Raw, env: Env): Raw {
  const out: Raw = { ...raw };
  const db = envValue(env, ENV.databaseUrl);
  if (db !== undefined) {
    const storage = asRecord(out.storage);
    out.storage =
      storage?.type === 'postgresql'
        ? { ...storage, connection_url: db }
        : { type: 'postgresql', connection_url: db };
  }
  const natsUrl = envValue(env, ENV.natsUrl);
  if (natsUrl !== undefined) out.nats = { ...asRecord(out.nats), url: natsUrl };
  const prefix = envValue(env, ENV.subjectPrefix);
  const nats = asRecord(out.nats);
  // Without NATS there is no subject to prefix: the in-process bus ignores it.
  if (prefix !== undefined && nats) out.nats = { ...nats, subject_prefix: prefix };
  const simple: [string, string][] = [
    [ENV.clusterSecret, 'cluster_secret'],
    [ENV.pluginDirectory, 'plugin_directory'],
    [ENV.apiAddr, 'api_addr'],
    [ENV.logLevel, 'log_level'],
  ];
  for (const [name, key] of simple) {
    const v = envValue(env, name);
    if (v !== undefined) out[key] = v;
  }
  const otlp = envValue(env, ENV.otlpEndpoint);
  if (otlp !== undefined) out.telemetry = { ...asRecord(out.telemetry), otlp_endpoint: otlp };
  const otel = otelOverrides(env);
  if (Object.keys(otel).length > 0) out.telemetry = { ...asRecord(out.telemetry), ...otel };
  const engineTimeout = envValue(env, ENV.engineTimeout);
  if (engineTimeout !== undefined)
    out.controller = { ...asRecord(out.controller), engine_timeout: engineTimeout };
  return out;
}

/**
 * The OpenTelemetry SDK's standard variables, mapped onto the telemetry block (the environment
 * wins, as for COFFER_*): service name, resource attributes, OTLP protocol, and the ratio of a
 * trace-id-ratio sampler (`OTEL_TRACES_SAMPLER=traceidratio|parentbased_traceidratio`).
 */
function otelOverrides(env: Env): Raw {
  const out: Raw = {};
  const name = envValue(env, ENV.otelServiceName);
  if (name !== undefined) out.service_name = name;
  const attributes = envValue(env, ENV.otelResourceAttributes);
  if (attributes !== undefined) out.resource_attributes = attributes;
  const protocol = envValue(env, ENV.otelTracesProtocol) ?? envValue(env, ENV.otelProtocol);
  if (protocol !== undefined) out.otlp_protocol = protocol;
  const sampler = envValue(env, ENV.otelSampler);
  const arg = envValue(env, ENV.otelSamplerArg);
  if (arg !== undefined && sampler !== undefined && sampler.endsWith('traceidratio'))
    out.trace_sample_ratio = arg;
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') out.trace_sample_ratio = 0;
  return out;
}

/** The dev API listener's max_json_* settings from COFFER_DEV_MAX_JSON_* (numbers, checked by the schema). */
function devJsonLimits(env: Env): Raw {
  const out: Raw = {};
  const pairs: [string, string][] = [
    [ENV.devMaxJsonDepth, 'max_json_depth'],
    [ENV.devMaxJsonStringValueLength, 'max_json_string_value_length'],
    [ENV.devMaxJsonObjectEntryCount, 'max_json_object_entry_count'],
    [ENV.devMaxJsonArrayElementCount, 'max_json_array_element_count'],
  ];
  for (const [name, key] of pairs) {
    const v = envValue(env, name);
    if (v !== undefined) out[key] = Number(v);
  }
  return out;
}

/** Dev mode (no config file): API and ops listeners on loopback, embedded PGlite storage. */
export function devDefaults(env: Env): Raw {
  const dataDir = envValue(env, ENV.devDataDir);
  const rootTokenId = envValue(env, ENV.devRootTokenId);
  const clusterAddress = envValue(env, ENV.devClusterAddress);
  return {
    listener: [
      {
        type: 'tcp',
        address: envValue(env, ENV.devListenAddress) ?? DEV_LISTEN_ADDRESS,
        purpose: 'api',
        tls_disable: true,
        ...devJsonLimits(env),
      },
      {
        type: 'tcp',
        address: envValue(env, ENV.opsListenAddress) ?? OPS_LISTEN_ADDRESS,
        purpose: 'ops',
        tls_disable: true,
      },
    ],
    storage: dataDir === undefined ? { type: 'pglite' } : { type: 'pglite', path: dataDir },
    // managed mode (HCP-like): everything lives under the "admin" namespace
    ...(['1', 'true'].includes(envValue(env, ENV.devManaged) ?? '')
      ? { managed_namespace_root: 'admin' }
      : {}),
    dev: {
      ...(rootTokenId === undefined ? {} : { root_token_id: rootTokenId }),
      ...(dataDir === undefined ? {} : { data_dir: dataDir }),
      ...(clusterAddress === undefined ? {} : { cluster_address: clusterAddress }),
    },
  };
}
