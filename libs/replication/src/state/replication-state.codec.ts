import type { Cipher } from '@coffer/barrier';
import type { ReplicationMode } from '@coffer/contracts/replication';
import { initialModeState, type ModeState } from './replication-state.decider';

/** The secret parts of a mode's state, sealed in the read model. */
interface Secrets {
  psks: Record<string, string>;
  linkPsk: string | null;
  privateKey: string | null;
  /** absent in rows written before fencing existed */
  supersedesPsk?: string | null;
}

const place = (mode: string): Buffer => Buffer.from(`replication_state/${mode}`, 'utf8');

/** A mode's state as its read-model row: the public JSON (no secrets) and the sealed secrets. */
export function encodeState(cipher: Cipher, s: ModeState): { public_state: string; secrets: Buffer } {
  const secrets: Secrets = {
    psks: Object.fromEntries(s.secondaries.map((x) => [x.id, x.psk])),
    linkPsk: s.link?.psk ?? null,
    privateKey: s.keyPair?.privateKey ?? null,
    supersedesPsk: s.supersedes?.psk ?? null,
  };
  const open: ModeState = {
    ...s,
    secondaries: s.secondaries.map((x) => ({ ...x, psk: '' })),
    link: s.link ? { ...s.link, psk: '' } : null,
    keyPair: s.keyPair ? { ...s.keyPair, privateKey: '' } : null,
    supersedes: s.supersedes ? { ...s.supersedes, psk: '' } : null,
  };
  return {
    public_state: JSON.stringify(open),
    secrets: cipher.encrypt(Buffer.from(JSON.stringify(secrets), 'utf8'), place(s.mode)),
  };
}

/** The public part only (status; works while sealed): pre-shared keys are empty strings. */
export function decodePublicState(mode: ReplicationMode, json: string | undefined): ModeState {
  if (json === undefined) return initialModeState(mode);
  return { ...initialModeState(mode), ...(JSON.parse(json) as ModeState) };
}

/** The whole state, secrets opened by the barrier. */
export function decodeState(
  cipher: Cipher,
  mode: ReplicationMode,
  row: { public_state: string; secrets: Buffer } | undefined,
): ModeState {
  if (!row) return initialModeState(mode);
  const s = decodePublicState(mode, row.public_state);
  const secrets = JSON.parse(cipher.decrypt(row.secrets, place(mode)).toString('utf8')) as Secrets;
  return {
    ...s,
    secondaries: s.secondaries.map((x) => ({ ...x, psk: secrets.psks[x.id] ?? '' })),
    link: s.link ? { ...s.link, psk: secrets.linkPsk ?? '' } : null,
    keyPair: s.keyPair ? { ...s.keyPair, privateKey: secrets.privateKey ?? '' } : null,
    supersedes: s.supersedes ? { ...s.supersedes, psk: secrets.supersedesPsk ?? '' } : null,
  };
}
