/** Nest injection tokens of the ssh service. */
export const SSH_RUNTIME = Symbol('SSH_RUNTIME');
export const SSH_EVENT_STORE = Symbol('SSH_EVENT_STORE');

/** The ssh service's own Postgres schema: its event log and read model. */
export const SSH_SCHEMA = 'ssh';
