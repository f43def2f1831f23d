import type { ServiceRuntime } from '@coffer/event-store';
import { tokenCreatedV1, type TokenCreatedData } from './token.events';

/** Vault's batch token prefix. */
export const BATCH_TOKEN_PREFIX = 'hvb.';
/** Binds the ciphertext to its use: a batch token cannot be swapped with another barrier blob. */
const AAD = Buffer.from('coffer batch token v1');

/** What a batch token carries: the token entry without the stored token's keys. */
const batchEntrySchema = tokenCreatedV1.omit({ accessor: true, tokenHash: true, tokenRef: true });
export type BatchEntry = Omit<TokenCreatedData, 'accessor' | 'tokenHash' | 'tokenRef'>;

type Cipher = ServiceRuntime['cipher'];

export const isBatchToken = (token: string): boolean => token.startsWith(BATCH_TOKEN_PREFIX);

/**
 * A batch token is its own entry, encrypted under the barrier and never stored (Vault: an
 * encrypted protobuf). Whoever holds the barrier key can read it back; nobody can forge one.
 */
export function sealBatchToken(cipher: Cipher, entry: BatchEntry): string {
  const plaintext = Buffer.from(JSON.stringify(batchEntrySchema.parse(entry)));
  return BATCH_TOKEN_PREFIX + cipher.encrypt(plaintext, AAD).toString('base64url');
}

/** The entry of a batch token, or undefined when it is malformed or was not sealed here. */
export function openBatchToken(cipher: Cipher, token: string): BatchEntry | undefined {
  if (!isBatchToken(token)) return undefined;
  const body = token.slice(BATCH_TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  if (cipher.sealed) cipher.decrypt(Buffer.alloc(0), AAD); // answers "sealed", not "bad token"
  try {
    const parsed = batchEntrySchema.safeParse(
      JSON.parse(cipher.decrypt(Buffer.from(body, 'base64url'), AAD).toString()),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a login issues a batch token: Vault's router settles the auth method's token_type
 * (user or role: default, service, batch, default-service, default-batch) against the mount's
 * tuned token_type; "service" and "batch" on the mount win, the default-* ones only fill in.
 */
export function loginIssuesBatch(mountTokenType: string, methodTokenType: string): boolean {
  switch (mountTokenType) {
    case 'service':
      return false;
    case 'batch':
      return true;
    case 'default-batch':
      return ['', 'default', 'default-batch', 'batch'].includes(methodTokenType);
    default:
      return !['', 'default', 'default-service', 'service'].includes(methodTokenType);
  }
}
