/** Nest injection tokens of the pki service. */
export const PKI_RUNTIME = Symbol('PKI_RUNTIME');
export const PKI_EVENT_STORE = Symbol('PKI_EVENT_STORE');
export const PKI_OPTIONS = Symbol('PKI_OPTIONS');

/** The pki service's own Postgres schema: its event log and read model. */
export const PKI_SCHEMA = 'pki';

export interface PkiModuleOptions {
  /**
   * RSA key generations (in 2048-bit equivalents) waiting per replica before requests are refused
   * with 429 at once (default 32)
   */
  keygenQueueLimit?: number;
  /** longest an RSA issue waits for its key before 429 (default 9,000 ms, under the 10 s engine timeout) */
  keygenMaxWaitMs?: number;
  /** ready RSA keys (in 2048-bit equivalents) kept per key size asked for (default 8; 0: none) */
  rsaPoolCost?: number;
  /** ms between unified revocation passes (default 30,000; the records also kick one) */
  unifiedRevocationIntervalMs?: number;
}
