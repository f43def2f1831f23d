import { createMessage, encrypt, readKey, type Key } from 'openpgp';
import { invalidRequest } from '@coffer/contracts';

/**
 * OpenPGP for key shares and generated tokens (Vault's helper/pgpkeys): the caller hands in
 * binary public keys as standard base64; what is encrypted comes back as binary OpenPGP messages,
 * which `gpg --decrypt` reads.
 */
export interface PgpRecipient {
  /** lower-case hex fingerprint, as Vault reports it */
  fingerprint: string;
  key: Key;
}

/** Parses base64 binary public keys, in order; a bad one fails the request with its position. */
export async function readPgpKeys(encoded: readonly string[]): Promise<PgpRecipient[]> {
  const out: PgpRecipient[] = [];
  for (const [i, value] of encoded.entries()) {
    let key: Key;
    try {
      const bytes = Buffer.from(value, 'base64');
      if (bytes.length === 0) throw new Error('empty key');
      key = await readKey({ binaryKey: bytes });
    } catch (error) {
      throw invalidRequest(`error decoding given PGP key ${i + 1}: ${(error as Error).message}`);
    }
    out.push({ fingerprint: key.getFingerprint().toLowerCase(), key });
  }
  return out;
}

/** Encrypts `plaintext` to one recipient: a binary OpenPGP message. */
export async function pgpEncrypt(recipient: PgpRecipient, plaintext: Uint8Array): Promise<Buffer> {
  const message = await createMessage({ binary: plaintext });
  // openpgp's return type names Node web-stream types the lint's type service cannot resolve;
  // a Uint8Array message with format "binary" always yields a Uint8Array.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  const encrypted: Uint8Array = await encrypt({ message, encryptionKeys: recipient.key, format: 'binary' });
  return Buffer.from(encrypted);
}
