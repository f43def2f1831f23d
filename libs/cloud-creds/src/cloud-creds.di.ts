/** Nest injection tokens of the cloud-creds service. */
export const CLOUD_CREDS_RUNTIME = Symbol('CLOUD_CREDS_RUNTIME');
export const CLOUD_CREDS_EVENT_STORE = Symbol('CLOUD_CREDS_EVENT_STORE');

/** The cloud-creds service's own Postgres schema: its event log and read model. */
export const CLOUD_CREDS_SCHEMA = 'cloud_creds';
