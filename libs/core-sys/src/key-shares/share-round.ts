import { timingSafeEqual } from 'node:crypto';
import { combineShares, decryptKeyring } from '@coffer/barrier';
import { invalidRequest, isDomainError } from '@coffer/contracts';

/**
 * The shares collected by one round of an attempt (rekey, rekey verification, root or operation
 * token generation): a share given twice in a round is refused (compared in constant time).
 */
export function addShare(shares: readonly Buffer[], share: Buffer, duplicateText: string): Buffer[] {
  for (const s of shares) {
    if (s.length === share.length && timingSafeEqual(s, share)) throw invalidRequest(duplicateText);
  }
  return [...shares, share];
}

/**
 * One share for a round under its nonce (Vault's texts name the operation: "rekey", "verify",
 * "root generation"); the shares so far plus this one.
 */
export function addRoundShare(
  round: { nonce: string; progress: readonly Buffer[] },
  share: Buffer,
  nonce: string,
  texts: { operation: string; duplicate: string },
): Buffer[] {
  if (nonce !== round.nonce)
    throw invalidRequest(
      `incorrect nonce supplied; nonce for this ${texts.operation} operation is "${round.nonce}"`,
    );
  return addShare(round.progress, share, texts.duplicate);
}

/** Wipes the shares of a round that ends, whatever the outcome. */
export function wipeShares(shares: readonly Buffer[]): void {
  for (const s of shares) s.fill(0);
}

/**
 * Rebuilds the root key from the current shares and proves it by opening the stored keyring.
 * The caller owns (and wipes) the returned key; the shares are wiped here.
 */
export async function recoverRootKey(shares: readonly Buffer[], keyringBlob: Buffer): Promise<Buffer> {
  let rootKey: Buffer;
  try {
    rootKey = await combineShares(shares);
  } catch (error) {
    if (isDomainError(error)) throw invalidRequest(`failed to compute root key: ${error.message}`);
    throw error;
  } finally {
    wipeShares(shares);
  }
  try {
    const keyring = decryptKeyring(rootKey, keyringBlob);
    for (const t of keyring.terms) t.key.fill(0);
    return rootKey;
  } catch (error) {
    rootKey.fill(0);
    if (isDomainError(error) && error.code === 'invalid_request')
      throw invalidRequest('root key verification failed: invalid key shares');
    throw error;
  }
}
