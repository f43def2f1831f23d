/** Vault's system-wide lease TTLs (768h = 32 days), used where a mount leaves its own unset. */
export const SYSTEM_DEFAULT_LEASE_TTL = 2_764_800;
export const SYSTEM_MAX_LEASE_TTL = 2_764_800;

/**
 * The product's catalogue of mount types, with the service that serves each: core-sys validates
 * sys/mounts and sys/auth against it. Types whose service does not exist yet (pki, ssh, ...) can
 * be mounted; requests to them answer 503 until their service lands. Which route table serves a
 * mount is declared by the engines themselves (`mountTypes` in `@coffer/engines`).
 */
export const SECRET_ENGINE_TYPES = [
  'kv',
  'cubbyhole',
  'ssh',
  'pki',
  'cloud-a',
  'cloud-b',
  'directory',
] as const;
export const AUTH_METHOD_TYPES = ['userpass'] as const;
export const SERVICE_FOR_TYPE: Record<string, string> = {
  kv: 'kv',
  cubbyhole: 'kv',
  ssh: 'ssh',
  pki: 'pki',
  'cloud-a': 'cloud-creds',
  'cloud-b': 'cloud-creds',
  directory: 'directory',
  system: 'core-sys',
  token: 'core-sys',
  identity: 'core-sys',
  userpass: 'core-sys',
};
