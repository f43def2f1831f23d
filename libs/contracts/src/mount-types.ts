/** Vault's system-wide lease TTLs (768h = 32 days), used where a mount leaves its own unset. */
export const SYSTEM_DEFAULT_LEASE_TTL = 2_764_800;
export const SYSTEM_MAX_LEASE_TTL = 2_764_800;

/** How a mount type is enabled: through sys/mounts (secrets engines) or sys/auth (auth methods). */
export type MountableKind = 'secret' | 'auth';

/** A mount type core-sys lets sys/mounts or sys/auth enable, with the service that serves it. */
export interface MountTypeEntry {
  type: string;
  kind: MountableKind;
  service: string;
}

/**
 * Every mountable type by name. Built from the engine list (`MOUNT_CATALOGUE` of
 * `@coffer/engines`: what each engine declares in its `mountTypes`, plus PLANNED_MOUNT_TYPES) and
 * handed to core-sys by its host and to the gateway by its app.
 */
export type MountCatalogue = ReadonlyMap<string, MountTypeEntry>;

/**
 * Mount types the product plans whose service does not exist yet: they can be mounted, and
 * requests to them answer 503 (no replica of the named service) until the service lands. Its
 * descriptor then declares the type, and the entry here becomes redundant (the engine wins).
 */
export const PLANNED_MOUNT_TYPES: readonly MountTypeEntry[] = [];
