import { timingSafeEqual } from 'node:crypto';
import { decodeKeyShare, validateShamirConfig } from '@coffer/barrier';
import {
  isDomainError,
  invalidRequest,
  type SysInitBody,
  type SysSealStatusRaw,
  type SysUnsealBody,
} from '@coffer/contracts';

/**
 * Pure rules of the Shamir seal (Vault's model): init parameters, unseal key decoding and the
 * unseal-progress state machine. No I/O, no clock, no randomness (the nonce is injected).
 */

export interface SealConfig {
  secretShares: number;
  secretThreshold: number;
}

/** Validates a PUT sys/init body (Vault's SealConfig.Validate texts). */
export function decideInitConfig(body: SysInitBody): SealConfig {
  if (body.pgp_keys.length > 0 || body.root_token_pgp_key !== '') {
    throw invalidRequest('PGP-encrypted key shares and root tokens are not supported');
  }
  const shares = body.secret_shares;
  const threshold = body.secret_threshold;
  try {
    validateShamirConfig(shares, threshold);
  } catch (error) {
    if (isDomainError(error)) throw invalidRequest(`invalid seal configuration: ${error.message}`);
    throw error;
  }
  return { secretShares: shares, secretThreshold: threshold };
}

export type UnsealCommand = { kind: 'reset' } | { kind: 'share'; share: Buffer };

/** Reads a PUT sys/unseal body: reset wins over key. */
export function decideUnsealCommand(body: SysUnsealBody): UnsealCommand {
  if (body.migrate === true) throw invalidRequest('seal migration is not supported');
  if (body.reset === true) return { kind: 'reset' };
  if (body.key === '') {
    throw invalidRequest("'key' must be specified in request body as JSON, or 'reset' set to true");
  }
  return { kind: 'share', share: decodeKeyShare(body.key) };
}

export interface UnsealProgress {
  nonce: string;
  shares: readonly Buffer[];
}

export type UnsealStep =
  /** threshold not reached yet */
  | { kind: 'pending'; progress: UnsealProgress }
  /** threshold reached: combine these shares; progress is cleared whatever the outcome */
  | { kind: 'combine'; shares: readonly Buffer[] };

function sameShare(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Adds one share to the attempt; a share given twice in one attempt is refused. */
export function submitShare(
  progress: UnsealProgress | undefined,
  share: Buffer,
  threshold: number,
  newNonce: () => string,
): UnsealStep {
  const current: UnsealProgress = progress ?? { nonce: newNonce(), shares: [] };
  if (current.shares.some((s) => sameShare(s, share))) {
    throw invalidRequest('given key has already been provided during this unseal operation');
  }
  const shares = [...current.shares, share];
  if (shares.length < threshold) return { kind: 'pending', progress: { nonce: current.nonce, shares } };
  return { kind: 'combine', shares };
}

export interface SealStatusInput {
  initialized: boolean;
  sealed: boolean;
  config: SealConfig | undefined;
  progress: UnsealProgress | undefined;
  version: string;
  buildDate: string;
  storageType: string;
  cluster: { name: string; id: string } | undefined;
}

/** The sys/seal-status and sys/unseal body (raw, no envelope). */
export function sealStatusBody(s: SealStatusInput): SysSealStatusRaw {
  const body: SysSealStatusRaw = {
    type: 'shamir',
    initialized: s.initialized,
    sealed: s.sealed,
    t: s.config?.secretThreshold ?? 0,
    n: s.config?.secretShares ?? 0,
    progress: s.sealed ? (s.progress?.shares.length ?? 0) : 0,
    nonce: s.sealed ? (s.progress?.nonce ?? '') : '',
    version: s.version,
    build_date: s.buildDate,
    migration: false,
    recovery_seal: false,
    storage_type: s.storageType,
  };
  if (!s.sealed && s.cluster) {
    body.cluster_name = s.cluster.name;
    body.cluster_id = s.cluster.id;
  }
  return body;
}
