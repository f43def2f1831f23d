import { invalidRequest, type SysGenerateRootStatusRaw } from '@coffer/contracts';
import { addRoundShare } from '../key-shares';

/**
 * The "operation token" attempt, pure (Vault's vault/generate_root.go): a caller starts it with a
 * one-time pad (or a PGP key), holders of the unseal key shares give them one by one under the
 * attempt's nonce, and once the threshold is reached a token is minted and handed out encoded.
 * Root token generation uses it; the DR operation token of replication will too.
 */

export interface OperationTokenAttempt {
  nonce: string;
  /** the pad the token is XORed with (never returned after the start) */
  otp?: string;
  pgp?: { key: string; fingerprint: string };
  progress: readonly Buffer[];
}

export type OperationTokenStart =
  { kind: 'otp'; otp: string; generated: boolean } | { kind: 'pgp'; key: string; fingerprint: string };

/** Texts that name the operation ("root generation", "DR operation token generation"). */
export interface OperationTokenTexts {
  operation: string;
}

/** Which pad or key protects the token: Vault's handler rules for the start request. */
export function decideTokenProtection(
  body: { otp: string; pgp_key: string },
  otpLength: number,
  generateOtp: () => string,
): { kind: 'otp'; otp: string; generated: boolean } | { kind: 'pgp'; key: string } {
  if (body.otp !== '' && body.pgp_key !== '')
    throw invalidRequest('only one of "otp" and "pgp_key" must be specified');
  if (body.pgp_key !== '') return { kind: 'pgp', key: body.pgp_key };
  if (body.otp !== '') {
    if (body.otp.length !== otpLength) throw invalidRequest('OTP string is wrong length');
    return { kind: 'otp', otp: body.otp, generated: false };
  }
  return { kind: 'otp', otp: generateOtp(), generated: true };
}

export function startOperationToken(
  current: OperationTokenAttempt | undefined,
  start: OperationTokenStart,
  nonce: string,
  texts: OperationTokenTexts,
): OperationTokenAttempt {
  if (current) throw invalidRequest(`${texts.operation} already in progress`);
  if (start.kind === 'pgp')
    return { nonce, pgp: { key: start.key, fingerprint: start.fingerprint }, progress: [] };
  return { nonce, otp: start.otp, progress: [] };
}

export type OperationTokenStep =
  | { kind: 'pending'; attempt: OperationTokenAttempt }
  /** threshold reached: verify `shares`, mint, encode; the attempt ends whatever the outcome */
  | { kind: 'combine'; attempt: OperationTokenAttempt; shares: readonly Buffer[] };

export function submitOperationShare(
  attempt: OperationTokenAttempt | undefined,
  share: Buffer,
  nonce: string,
  threshold: number,
  texts: OperationTokenTexts,
): OperationTokenStep {
  if (!attempt) throw invalidRequest(`no ${texts.operation} in progress`);
  const progress = addRoundShare(attempt, share, nonce, {
    operation: texts.operation,
    duplicate: 'given key has already been provided during this generation operation',
  });
  if (progress.length < threshold) return { kind: 'pending', attempt: { ...attempt, progress } };
  return { kind: 'combine', attempt: { ...attempt, progress: [] }, shares: progress };
}

/** base64 (raw, no padding) of token XOR otp: equal lengths, byte by byte. */
export function xorEncodeToken(token: string, otp: string): string {
  const a = Buffer.from(token, 'utf8');
  const b = Buffer.from(otp, 'utf8');
  if (a.length !== b.length) throw new Error('token and one-time pad differ in length');
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out.toString('base64').replace(/=+$/, '');
}

/** sys/decode-token: the inverse of xorEncodeToken (padded input accepted too). */
export function xorDecodeToken(encoded: string, otp: string): string {
  if (encoded === '') throw invalidRequest('missing encoded_token');
  if (otp === '') throw invalidRequest('missing otp');
  const stripped = encoded.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(stripped) || stripped.length % 4 === 1)
    throw invalidRequest('error decoding encoded_token: illegal base64 data');
  const bytes = Buffer.from(stripped, 'base64');
  const pad = Buffer.from(otp, 'utf8');
  if (bytes.length !== pad.length)
    throw invalidRequest(`length of byte slices is not equivalent: ${bytes.length} != ${pad.length}`);
  const out = Buffer.alloc(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = (bytes[i] ?? 0) ^ (pad[i] ?? 0);
  return out.toString('utf8');
}

export interface OperationTokenStatusInput {
  attempt: OperationTokenAttempt | undefined;
  required: number;
  otpLength: number;
  /** the start answer's generated pad */
  otp?: string;
  /** the completed answer */
  complete?: { nonce: string; encodedToken: string; fingerprint: string; progress: number };
}

export function operationTokenStatusBody(s: OperationTokenStatusInput): SysGenerateRootStatusRaw {
  if (s.complete) {
    return {
      started: true,
      nonce: s.complete.nonce,
      progress: s.complete.progress,
      required: s.required,
      complete: true,
      encoded_token: s.complete.encodedToken,
      encoded_root_token: s.complete.encodedToken,
      pgp_fingerprint: s.complete.fingerprint,
      otp_length: s.otpLength,
    };
  }
  const body: SysGenerateRootStatusRaw = {
    started: s.attempt !== undefined,
    nonce: s.attempt?.nonce ?? '',
    progress: s.attempt?.progress.length ?? 0,
    required: s.required,
    complete: false,
    encoded_token: '',
    encoded_root_token: '',
    pgp_fingerprint: s.attempt?.pgp?.fingerprint ?? '',
    otp_length: s.otpLength,
  };
  if (s.otp !== undefined) body.otp = s.otp;
  return body;
}
