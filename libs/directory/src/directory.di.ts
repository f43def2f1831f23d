/** Nest injection tokens of the directory service. */
export const DIRECTORY_RUNTIME = Symbol('DIRECTORY_RUNTIME');
export const DIRECTORY_EVENT_STORE = Symbol('DIRECTORY_EVENT_STORE');

/** The directory service's own Postgres schema: its event log and read model. */
export const DIRECTORY_SCHEMA = 'directory';
