/** Nest injection tokens and options of the kv service. */
export const KV_RUNTIME = Symbol('KV_RUNTIME');
export const KV_OPTIONS = Symbol('KV_OPTIONS');
export const KV_EVENT_STORE = Symbol('KV_EVENT_STORE');

/** The kv service's own Postgres schema: its event log and read model. */
export const KV_SCHEMA = 'kv';

export interface KvModuleOptions {
  /**
   * How often each replica checks that the tokens owning cubbyholes are still alive (so a missed
   * token-revoked broadcast or an expiry never leaves data behind). Default 60 000 ms; 0 disables.
   */
  cubbyholeSweepIntervalMs?: number;
  /** Token refs checked per coreTokenAlive call during a sweep. Default 500. */
  cubbyholeSweepBatchSize?: number;
  /**
   * Nothing but this module writes the kv schema (dev mode: PGlite lives inside the process), so
   * cached reads need no database check while no kv write happened (KvReadFence). Default false.
   */
  soleWriter?: boolean;
}
