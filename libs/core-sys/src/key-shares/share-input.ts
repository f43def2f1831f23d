import { decodeKeyShare, ROOT_KEY_LENGTH } from '@coffer/barrier';
import { invalidRequest } from '@coffer/contracts';

/** A share is at least a 16-byte key and at most the root key plus Shamir's x-coordinate byte. */
const MIN_SHARE_LENGTH = 16;
const MAX_SHARE_LENGTH = ROOT_KEY_LENGTH + 1;

/**
 * Reads the `key` of a rekey, rekey verify or generate-root update as Vault does: required,
 * hex or base64, and of a plausible length (Vault's texts).
 */
export function readShare(key: string): Buffer {
  if (key === '') throw invalidRequest("'key' must be specified in request body as JSON");
  const share = decodeKeyShare(key);
  if (share.length < MIN_SHARE_LENGTH)
    throw invalidRequest(`key is shorter than minimum ${MIN_SHARE_LENGTH} bytes`);
  if (share.length > MAX_SHARE_LENGTH)
    throw invalidRequest(`key is longer than maximum ${MAX_SHARE_LENGTH} bytes`);
  return share;
}
