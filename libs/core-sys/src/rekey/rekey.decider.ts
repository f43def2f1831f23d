import { validateShamirConfig } from '@coffer/barrier';
import {
  invalidRequest,
  isDomainError,
  type SysRekeyInitBody,
  type SysRekeyStatusRaw,
  type SysRekeyVerifyStatusRaw,
} from '@coffer/contracts';
import { addRoundShare } from '../key-shares';

/**
 * The rekey state machine (Vault's vault/rekey.go), pure: none → in progress → (verification) →
 * complete, one attempt at a time. Nonces are injected; crypto and storage stay in the service.
 */

export interface RekeyConfig {
  shares: number;
  threshold: number;
  /** base64 binary public keys, one per new share */
  pgpKeys: readonly string[];
  pgpFingerprints: readonly string[];
  backup: boolean;
  requireVerification: boolean;
}

export interface RekeyVerification {
  nonce: string;
  /** the new root key, rotated in once the new shares prove they rebuild it */
  rootKey: Buffer;
  progress: readonly Buffer[];
}

export interface RekeyAttempt {
  nonce: string;
  config: RekeyConfig;
  /** current shares given so far */
  progress: readonly Buffer[];
  verification?: RekeyVerification;
}

/** Validates PUT sys/rekey/init (the PGP keys are parsed by the caller, which adds fingerprints). */
export function decideRekeyConfig(body: SysRekeyInitBody): Omit<RekeyConfig, 'pgpFingerprints'> {
  if (body.backup && body.pgp_keys.length === 0)
    throw invalidRequest('cannot request a backup of the new keys without providing PGP keys for encryption');
  if (body.pgp_keys.length > 0 && body.pgp_keys.length !== body.secret_shares)
    throw invalidRequest('incorrect number of PGP keys for rekey');
  if (body.secret_threshold > body.secret_shares)
    throw invalidRequest('provided threshold greater than the total shares');
  try {
    validateShamirConfig(body.secret_shares, body.secret_threshold);
  } catch (error) {
    if (isDomainError(error)) throw invalidRequest(`invalid rekey seal configuration: ${error.message}`);
    throw error;
  }
  return {
    shares: body.secret_shares,
    threshold: body.secret_threshold,
    pgpKeys: body.pgp_keys,
    backup: body.backup,
    requireVerification: body.require_verification,
  };
}

export function startRekey(
  current: RekeyAttempt | undefined,
  config: RekeyConfig,
  nonce: string,
): RekeyAttempt {
  if (current) throw invalidRequest('rekey already in progress');
  return { nonce, config, progress: [] };
}

export type RekeyStep =
  | { kind: 'pending'; attempt: RekeyAttempt }
  /** threshold of current shares reached: rebuild the root key from `shares` (progress cleared) */
  | { kind: 'combine'; attempt: RekeyAttempt; shares: readonly Buffer[] };

/** PUT sys/rekey/update: one current share. */
export function submitRekeyShare(
  attempt: RekeyAttempt | undefined,
  share: Buffer,
  nonce: string,
  threshold: number,
): RekeyStep {
  if (!attempt) throw invalidRequest('no barrier rekey in progress');
  if (attempt.verification) {
    throw invalidRequest(
      `rekey operation already finished; verification must be performed; nonce for the verification operation is "${attempt.verification.nonce}"`,
    );
  }
  const progress = addRoundShare(attempt, share, nonce, {
    operation: 'rekey',
    duplicate: 'given key has already been provided during this generation operation',
  });
  if (progress.length < threshold) return { kind: 'pending', attempt: { ...attempt, progress } };
  return { kind: 'combine', attempt: { ...attempt, progress: [] }, shares: progress };
}

export type VerifyStep =
  | { kind: 'pending'; attempt: RekeyAttempt }
  | { kind: 'combine'; attempt: RekeyAttempt; verification: RekeyVerification; shares: readonly Buffer[] };

/** PUT sys/rekey/verify: one new share. */
export function submitVerifyShare(
  attempt: RekeyAttempt | undefined,
  share: Buffer,
  nonce: string,
): VerifyStep {
  if (!attempt) throw invalidRequest('no rekey in progress');
  const verification = attempt.verification;
  if (!verification) throw invalidRequest('no rekey verification in progress');
  const progress = addRoundShare(verification, share, nonce, {
    operation: 'verify',
    duplicate: 'given key has already been provided during this verify operation',
  });
  if (progress.length < attempt.config.threshold)
    return { kind: 'pending', attempt: { ...attempt, verification: { ...verification, progress } } };
  return { kind: 'combine', attempt, verification, shares: progress };
}

/** A failed or restarted verification: progress cleared, a new nonce. */
export function restartVerification(attempt: RekeyAttempt, nonce: string): RekeyAttempt {
  if (!attempt.verification) return attempt;
  return { ...attempt, verification: { ...attempt.verification, nonce, progress: [] } };
}

/** GET sys/rekey/init (and the answer of init and of an incomplete update). */
export function rekeyStatusBody(attempt: RekeyAttempt | undefined, required: number): SysRekeyStatusRaw {
  const pgp = attempt && attempt.config.pgpFingerprints.length > 0 ? attempt.config.pgpFingerprints : null;
  return {
    started: attempt !== undefined,
    nonce: attempt?.nonce ?? '',
    t: attempt?.config.threshold ?? 0,
    n: attempt?.config.shares ?? 0,
    progress: attempt?.progress.length ?? 0,
    required,
    pgp_fingerprints: pgp ? [...pgp] : null,
    backup: attempt?.config.backup ?? false,
    verification_required: attempt?.config.requireVerification ?? false,
  };
}

/** GET sys/rekey/verify (and the answer of an incomplete verify). */
export function verifyStatusBody(attempt: RekeyAttempt): SysRekeyVerifyStatusRaw {
  return {
    started: attempt.verification !== undefined,
    nonce: attempt.verification?.nonce ?? '',
    t: attempt.config.threshold,
    n: attempt.config.shares,
    progress: attempt.verification?.progress.length ?? 0,
  };
}
