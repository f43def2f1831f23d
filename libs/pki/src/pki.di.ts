/** Nest injection tokens of the pki service. */
export const PKI_RUNTIME = Symbol('PKI_RUNTIME');
export const PKI_EVENT_STORE = Symbol('PKI_EVENT_STORE');
export const PKI_OPTIONS = Symbol('PKI_OPTIONS');

/** The pki service's own Postgres schema: its event log and read model. */
export const PKI_SCHEMA = 'pki';

export interface PkiModuleOptions {
  /** RSA key generations running at once per replica (default: 2, the cores of a small node) */
  keygenConcurrency?: number;
  /**
   * RSA key generations (in 2048-bit equivalents) waiting per replica before requests are refused
   * with 429 (default 16: about 1.5 s of waiting on two cores)
   */
  keygenQueueLimit?: number;
}
