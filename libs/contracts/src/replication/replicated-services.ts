/**
 * The services a secondary replays, one line each: everything replication does per service (which
 * logs it streams into a service instead of a verified copy, which it folds at promotion, which
 * log an X-Service-Index names) derives from here. Each keeps the primary's rows in a log beside
 * its own (`<schema>_replica`, see the event store's replica log, `replicaLogSchemaOf`), its read
 * models shared, and keeps writing locally on a secondary (Vault's local storage: local mounts
 * and cubbyhole, tokens and leases, issued certificates, generated credentials); a performance
 * secondary forwards only the writes of routes flagged `replicated` (RouteDef.replicated). A
 * promoted cluster folds that log into its own.
 */
export interface ReplicatedService {
  /** the service (its NATS queue group), as route tables name it */
  service: string;
  /** its schema: the name of its log in the stream and in an index state */
  schema: string;
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
  { service: 'core-sys', schema: 'core_sys' },
  { service: 'kv', schema: 'kv' },
  { service: 'ssh', schema: 'ssh' },
  { service: 'cloud-creds', schema: 'cloud_creds' },
  { service: 'pki', schema: 'pki' },
  { service: 'oidc', schema: 'oidc', namespaceOf: oidcConfigNamespace },
  { service: 'directory', schema: 'directory' },
];

/** The schema of the log beside a replicated service's own (core_sys → core_sys_replica). */
export const replicaLogSchemaOf = (schema: string): string => `${schema}_replica`;
