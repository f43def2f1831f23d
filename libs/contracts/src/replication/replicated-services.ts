/**
 * The services a secondary replays, one line each: everything replication does per service (which
 * logs it streams into a service instead of a verified copy, which it folds at promotion, which
 * log an X-Service-Index names, which writes a performance secondary forwards) derives from here.
 */
export interface ReplicatedService {
  /** the service (its NATS queue group), as route tables name it */
  service: string;
  /** its schema: the name of its log in the stream and in an index state */
  schema: string;
  /**
   * Where a secondary keeps the primary's rows:
   * - `own`: in the service's own log (same WAL indexes and chain), so the secondary must never
   *   write there itself: a performance secondary forwards every write to a replicated mount and
   *   refuses the others (kv);
   * - `replica`: in a log beside it (`<schema>_replica`, see the event store's replica log), its
   *   read models shared; the service keeps writing locally (Vault's local storage: tokens and
   *   leases, issued certificates, generated credentials) and only its routes flagged `replicated`
   *   are forwarded. A promoted cluster folds that log into its own.
   */
  log: 'own' | 'replica';
  /**
   * For streams keyed by a namespace instead of a mount (the mount-keyed ones are
   * `<aggregate>/<mount uuid>/...`): the stream's namespace path ("" the root, else "ns1/"), or
   * undefined for a stream that names none. A performance primary's paths filter holds back the
   * streams of the namespaces it filters out.
   */
  namespaceOf?: (stream: string) => string | undefined;
}

/** oidc's configuration streams: `oidc-config/<kind>/<namespace, URI-encoded; "-" the root>/<name>`. */
function oidcConfigNamespace(stream: string): string | undefined {
  if (!stream.startsWith('oidc-config/')) return undefined;
  const segment = stream.split('/')[2];
  if (segment === undefined) return undefined;
  return segment === '-' ? '' : decodeURIComponent(segment);
}

export const REPLICATED_SERVICES: readonly ReplicatedService[] = [
  { service: 'core-sys', schema: 'core_sys', log: 'replica' },
  { service: 'kv', schema: 'kv', log: 'own' },
  { service: 'ssh', schema: 'ssh', log: 'replica' },
  { service: 'cloud-creds', schema: 'cloud_creds', log: 'replica' },
  { service: 'pki', schema: 'pki', log: 'replica' },
  { service: 'oidc', schema: 'oidc', log: 'replica', namespaceOf: oidcConfigNamespace },
  { service: 'directory', schema: 'directory', log: 'replica' },
];

/** The schema of the log beside a `replica` service's own (core_sys → core_sys_replica). */
export const replicaLogSchemaOf = (schema: string): string => `${schema}_replica`;
