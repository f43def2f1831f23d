/**
 * The barrier: everything a service stores is encrypted with the active keyring term
 * (AES-256-GCM). The keyring lives in memory only, once unsealed; sealing wipes it.
 *
 * Ciphertext format: [0x01 version][u32be term][12-byte nonce][ciphertext][16-byte tag].
 * `aad` binds a ciphertext to its place (e.g. stream + version), so blobs cannot be swapped.
 */
export interface Cipher {
  readonly sealed: boolean;
  /** throws DomainError('sealed', 'Vault is sealed') when sealed */
  encrypt(plaintext: Uint8Array, aad: Uint8Array): Buffer;
  /** throws DomainError('sealed') when sealed; DomainError('internal') on auth-tag failure */
  decrypt(ciphertext: Uint8Array, aad: Uint8Array): Buffer;
}

export interface KeyringTerm {
  term: number;
  key: Buffer; // 32 bytes
  installedAt: string; // RFC 3339
}
export interface KeyringData {
  activeTerm: number;
  terms: KeyringTerm[];
}
