/** Nest injection tokens and options of the oidc service. */
export const OIDC_RUNTIME = Symbol('OIDC_RUNTIME');
export const OIDC_EVENT_STORE = Symbol('OIDC_EVENT_STORE');
export const OIDC_OPTIONS = Symbol('OIDC_OPTIONS');

/** The oidc service's own Postgres schema: its event log and read model. */
export const OIDC_SCHEMA = 'oidc';

export interface OidcModuleOptions {
  /** the advertised API address: the default issuer is built from it */
  apiAddr: string;
  /** how often each replica looks for keys due for rotation (ms); default 10 000, 0 disables */
  rotationCheckIntervalMs?: number;
}
