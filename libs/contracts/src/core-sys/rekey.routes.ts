import { z } from 'zod';
import { weakBool, weakInt, weakString, weakStringList } from '../fields';
import { engineContract, type RouteDef } from '../routes';

/**
 * Rekey of the unseal key shares (Vault's sys/rekey/*) and root token generation
 * (sys/generate-root/*, sys/decode-token). The attempts live on the seal leader (queue
 * "core-sys-leader"), like the unseal progress; their answers are raw bodies (no envelope), except
 * sys/rekey/backup and sys/decode-token, which use the envelope (backup also at the top level).
 */

const expectedIntegers = () => 'invalid request body: expected integers';

export const sysRekeyInitBody = z
  .object({
    secret_shares: weakInt({
      default: 0,
      message: expectedIntegers,
      description: 'Number of new key shares.',
    }),
    secret_threshold: weakInt({
      default: 0,
      message: expectedIntegers,
      description: 'Number of new shares needed to rebuild the root key.',
    }),
    pgp_keys: weakStringList({
      default: [],
      description: 'Base64 binary OpenPGP public keys, one per share (order kept): each share is encrypted.',
    }),
    backup: weakBool({
      default: false,
      description: 'Store the PGP-encrypted shares (GET sys/rekey/backup).',
    }),
    require_verification: weakBool({
      default: false,
      description: 'Rotate the root key only after the new shares are given to sys/rekey/verify.',
    }),
  })
  .prefault({});
export type SysRekeyInitBody = z.output<typeof sysRekeyInitBody>;

/** One key share and the attempt's nonce (rekey update and verify, generate-root update). */
export const sysShareBody = z
  .object({
    key: weakString({ default: '', description: 'One key share, hex or base64.' }),
    nonce: weakString({ default: '', description: "The attempt's nonce." }),
  })
  .prefault({});
export type SysShareBody = z.output<typeof sysShareBody>;

export const sysRekeyStatusRaw = z.object({
  started: z.boolean(),
  nonce: z.string(),
  t: z.number().int().describe('Threshold of the new shares.'),
  n: z.number().int().describe('Number of new shares.'),
  progress: z.number().int().describe('Current shares provided so far.'),
  required: z.number().int().describe('Current shares needed.'),
  pgp_fingerprints: z.array(z.string()).nullable(),
  backup: z.boolean(),
  verification_required: z.boolean(),
});
export type SysRekeyStatusRaw = z.input<typeof sysRekeyStatusRaw>;

export const sysRekeyCompleteRaw = z.object({
  complete: z.literal(true),
  nonce: z.string(),
  keys: z.array(z.string()).describe('The new shares (hex; with PGP keys: hex of the encrypted shares).'),
  keys_base64: z.array(z.string()),
  pgp_fingerprints: z.array(z.string()).nullable(),
  backup: z.boolean(),
  verification_required: z.boolean(),
  verification_nonce: z.string().optional(),
});
export type SysRekeyCompleteRaw = z.input<typeof sysRekeyCompleteRaw>;

export const sysRekeyVerifyStatusRaw = z.object({
  started: z.boolean(),
  nonce: z.string(),
  t: z.number().int(),
  n: z.number().int(),
  progress: z.number().int(),
});
export type SysRekeyVerifyStatusRaw = z.input<typeof sysRekeyVerifyStatusRaw>;

export const sysRekeyVerifyCompleteRaw = z.object({ nonce: z.string(), complete: z.literal(true) });

export const sysRekeyBackupData = z.object({
  nonce: z.string(),
  keys: z.record(z.string(), z.array(z.string())).describe('PGP fingerprint → hex-encoded encrypted shares.'),
});
export type SysRekeyBackupData = z.output<typeof sysRekeyBackupData>;

export const sysGenerateRootBody = z
  .object({
    pgp_key: weakString({
      default: '',
      description: 'Base64 binary OpenPGP public key to encrypt the token with.',
    }),
    otp: weakString({ default: '', description: 'Legacy: a caller-chosen one-time pad.' }),
  })
  .prefault({});
export type SysGenerateRootBody = z.output<typeof sysGenerateRootBody>;

export const sysGenerateRootStatusRaw = z.object({
  started: z.boolean(),
  nonce: z.string(),
  progress: z.number().int(),
  required: z.number().int(),
  complete: z.boolean(),
  encoded_token: z.string(),
  encoded_root_token: z.string(),
  pgp_fingerprint: z.string(),
  otp: z.string().optional().describe('Only in the answer that starts an attempt without pgp_key.'),
  otp_length: z.number().int(),
});
export type SysGenerateRootStatusRaw = z.input<typeof sysGenerateRootStatusRaw>;

export const sysDecodeTokenBody = z
  .object({
    encoded_token: weakString({ default: '', description: 'The encoded token of a completed attempt.' }),
    otp: weakString({ default: '', description: 'The attempt’s one-time pad.' }),
  })
  .prefault({});
export type SysDecodeTokenBody = z.output<typeof sysDecodeTokenBody>;

export const rekeyContracts = {
  rekeyStatus: engineContract('core.sys.rekey.status', { raw: sysRekeyStatusRaw }),
  rekeyInit: engineContract('core.sys.rekey.init', { body: sysRekeyInitBody, raw: sysRekeyStatusRaw }),
  rekeyCancel: engineContract('core.sys.rekey.cancel', { raw: z.null() }),
  rekeyUpdate: engineContract('core.sys.rekey.update', {
    body: sysShareBody,
    raw: z.union([sysRekeyCompleteRaw, sysRekeyStatusRaw]),
  }),
  rekeyVerifyStatus: engineContract('core.sys.rekey.verify-status', { raw: sysRekeyVerifyStatusRaw }),
  rekeyVerifyRestart: engineContract('core.sys.rekey.verify-restart', { raw: sysRekeyVerifyStatusRaw }),
  rekeyVerify: engineContract('core.sys.rekey.verify', {
    body: sysShareBody,
    raw: z.union([sysRekeyVerifyCompleteRaw, sysRekeyVerifyStatusRaw]),
  }),
  rekeyBackupRead: engineContract('core.sys.rekey.backup-read', { data: sysRekeyBackupData }),
  rekeyBackupDelete: engineContract('core.sys.rekey.backup-delete', { data: z.object({}) }),
  generateRootStatus: engineContract('core.sys.generate-root.status', { raw: sysGenerateRootStatusRaw }),
  generateRootInit: engineContract('core.sys.generate-root.init', {
    body: sysGenerateRootBody,
    raw: sysGenerateRootStatusRaw,
  }),
  generateRootCancel: engineContract('core.sys.generate-root.cancel', { raw: z.null() }),
  generateRootUpdate: engineContract('core.sys.generate-root.update', {
    body: sysShareBody,
    raw: sysGenerateRootStatusRaw,
  }),
  decodeToken: engineContract('core.sys.generate-root.decode', {
    body: sysDecodeTokenBody,
    data: z.object({ token: z.string() }),
  }),
} as const;

const r = rekeyContracts;

/**
 * Leader-only contracts: every subject of the rekey and generate-root attempts (the attempt is
 * in the leader's memory), served on the leader queue.
 */
export const leaderAttemptContracts = [
  r.rekeyStatus,
  r.rekeyInit,
  r.rekeyCancel,
  r.rekeyUpdate,
  r.rekeyVerifyStatus,
  r.rekeyVerifyRestart,
  r.rekeyVerify,
  r.generateRootStatus,
  r.generateRootInit,
  r.generateRootCancel,
  r.generateRootUpdate,
] as const;

export const rekeyRouteDefs: RouteDef[] = [
  {
    pattern: 'rekey/init',
    restricted: true,
    synopsis: 'Starts, reads or cancels a rekey of the unseal key shares.',
    description:
      'PUT starts an attempt (secret_shares, secret_threshold, pgp_keys, backup, require_verification) and answers its status; GET reads it; DELETE cancels it, the current shares stay valid. Authorised by the current unseal key shares, like Vault.',
    unauthenticated: true,
    operations: {
      read: { contract: r.rekeyStatus, summary: 'Reads the rekey attempt.' },
      update: { contract: r.rekeyInit, summary: 'Starts a rekey attempt.' },
      delete: { contract: r.rekeyCancel, summary: 'Cancels the rekey attempt.' },
    },
  },
  {
    pattern: 'rekey/update',
    restricted: true,
    synopsis: 'Provides one current unseal key share to the rekey attempt.',
    description:
      'Once the threshold of current shares is reached the new shares are returned; the root key rotates then, or after verification when require_verification was set.',
    unauthenticated: true,
    operations: { update: { contract: r.rekeyUpdate, summary: 'Submits one current key share.' } },
  },
  {
    pattern: 'rekey/verify',
    restricted: true,
    synopsis: 'Verifies the new key shares before the root key rotates.',
    description:
      'PUT provides one new share with the verification nonce; GET reads the progress; DELETE restarts the verification with a new nonce.',
    unauthenticated: true,
    operations: {
      read: { contract: r.rekeyVerifyStatus, summary: 'Reads the verification progress.' },
      update: { contract: r.rekeyVerify, summary: 'Submits one new key share.' },
      delete: { contract: r.rekeyVerifyRestart, summary: 'Restarts the verification.' },
    },
  },
  {
    pattern: 'rekey/backup',
    restricted: true,
    synopsis: 'Reads or deletes the backup of the PGP-encrypted new key shares.',
    description: 'Keys are grouped by PGP key fingerprint, hex-encoded. Requires sudo.',
    sudo: true,
    operations: {
      read: { contract: r.rekeyBackupRead, summary: 'Reads the key backup.' },
      delete: { contract: r.rekeyBackupDelete, summary: 'Deletes the key backup.' },
    },
  },
  {
    pattern: 'generate-root/attempt',
    restricted: true,
    synopsis: 'Starts, reads or cancels a root token generation.',
    description:
      'PUT starts an attempt, with pgp_key (the token is PGP-encrypted) or without (a one-time pad is returned once); GET reads it; DELETE cancels it.',
    unauthenticated: true,
    operations: {
      read: { contract: r.generateRootStatus, summary: 'Reads the generation attempt.' },
      update: { contract: r.generateRootInit, summary: 'Starts a generation attempt.' },
      delete: { contract: r.generateRootCancel, summary: 'Cancels the generation attempt.' },
    },
  },
  {
    pattern: 'generate-root/update',
    restricted: true,
    synopsis: 'Provides one unseal key share to the root token generation.',
    description: 'Once the threshold is reached a root token is created and returned encoded.',
    unauthenticated: true,
    operations: { update: { contract: r.generateRootUpdate, summary: 'Submits one key share.' } },
  },
  {
    pattern: 'decode-token',
    restricted: true,
    synopsis: 'Decodes an OTP-encoded token.',
    description: 'XORs the base64 encoded_token with the otp and returns the token.',
    operations: { update: { contract: r.decodeToken, summary: 'Decodes a token.' } },
  },
];
