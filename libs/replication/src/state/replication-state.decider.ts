import { DomainError, invalidRequest } from '@coffer/contracts';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { ReplicationStateEvent } from './replication-state.events';

/** What this cluster knows of the primary it replicates from (a secondary's link). */
export interface PrimaryLink {
  clusterId: string;
  secondaryId: string;
  primaryClusterAddr: string;
  primaryApiAddr: string;
  psk: string;
}

/** A secondary an activation token was issued for (kept by the primary). */
export interface KnownSecondary {
  id: string;
  psk: string;
  expiresAtMs: number;
}

/** The replication state of one mode of this cluster (the contract's state table). */
export interface ModeState {
  mode: ReplicationMode;
  state: 'disabled' | 'primary' | 'secondary';
  /** the replication set's id; a new one each time primary mode is enabled */
  clusterId: string | null;
  /** primary: the address given to secondaries (empty = the configured cluster address) */
  primaryClusterAddr: string;
  secondaries: KnownSecondary[];
  /** ids revoked for good (revoke-secondary): they never connect again, even with a new token */
  revoked: string[];
  /** secondary: the primary it follows; null after a demote or a blank update-primary */
  link: PrimaryLink | null;
  /** every primary cluster address this secondary has followed */
  knownPrimaryClusterAddrs: string[];
  /** performance primary: paths filters by secondary id */
  filters: Record<string, { mode: 'allow' | 'deny'; paths: string[] }>;
  /** generate-public-key: this cluster's X25519 key pair (PEM) */
  keyPair: { publicKey: string; privateKey: string } | null;
  /**
   * A promoted secondary: the primary it was promoted away from, told to step down while both
   * are up (split-brain fencing, see stream/fencer.ts); null otherwise.
   */
  supersedes: PrimaryLink | null;
  /**
   * Which primary's history this cluster is in, bumped whenever the primary of the set changes
   * (enable, demote, promote). A primary stamps every frame with it; a secondary keeps the
   * highest it has seen and refuses frames of a lower one (a superseded primary), so a cluster
   * never goes back to a history a promotion left behind.
   */
  epoch: number;
}

export const initialModeState = (mode: ReplicationMode): ModeState => ({
  mode,
  state: 'disabled',
  clusterId: null,
  primaryClusterAddr: '',
  secondaries: [],
  revoked: [],
  link: null,
  knownPrimaryClusterAddrs: [],
  filters: {},
  keyPair: null,
  supersedes: null,
  epoch: 0,
});

const withAddr = (addrs: string[], addr: string): string[] =>
  addr === '' || addrs.includes(addr) ? addrs : [...addrs, addr];

export function evolve(s: ModeState, e: ReplicationStateEvent): ModeState {
  switch (e.type) {
    case 'ReplicationPrimaryEnabled':
      return {
        ...s,
        state: 'primary',
        clusterId: e.data.clusterId,
        primaryClusterAddr: e.data.primaryClusterAddr,
        secondaries: [],
        link: null,
        supersedes: null,
        epoch: s.epoch + 1,
      };
    case 'ReplicationPrimaryDemoted':
      // a cluster promoted away from this one stamps epoch + 1: this one follows it, not itself
      return { ...s, state: 'secondary', link: null, supersedes: null, epoch: s.epoch + 1 };
    case 'ReplicationPrimaryDisabled':
      return { ...s, state: 'disabled', clusterId: null, secondaries: [], filters: {}, supersedes: null };
    case 'ReplicationSecondaryTokenIssued':
      return {
        ...s,
        secondaries: [
          ...s.secondaries.filter((x) => x.id !== e.data.id),
          { id: e.data.id, psk: e.data.psk, expiresAtMs: e.data.expiresAtMs },
        ],
      };
    case 'ReplicationSecondaryRevoked':
      return {
        ...s,
        secondaries: s.secondaries.filter((x) => x.id !== e.data.id),
        revoked: s.revoked.includes(e.data.id) ? s.revoked : [...s.revoked, e.data.id],
      };
    case 'ReplicationSecondaryEnabled': {
      const { mode: _mode, ...link } = e.data;
      return {
        ...s,
        state: 'secondary',
        clusterId: link.clusterId,
        link,
        secondaries: [],
        filters: {},
        knownPrimaryClusterAddrs: withAddr([], link.primaryClusterAddr),
        // a wiped secondary of (possibly) another set: it learns the epoch from the first frame
        epoch: 0,
      };
    }
    case 'ReplicationPrimaryUpdated':
      return e.data.link === null
        ? { ...s, link: null, knownPrimaryClusterAddrs: [] }
        : {
            ...s,
            link: e.data.link,
            clusterId: e.data.link.clusterId,
            knownPrimaryClusterAddrs: withAddr(s.knownPrimaryClusterAddrs, e.data.link.primaryClusterAddr),
          };
    case 'ReplicationSecondaryDisabled':
      return { ...s, state: 'disabled', clusterId: null, link: null, knownPrimaryClusterAddrs: [] };
    case 'ReplicationSecondaryPromoted':
      return {
        ...s,
        state: 'primary',
        link: null,
        primaryClusterAddr: e.data.primaryClusterAddr,
        secondaries: [],
        revoked: [],
        supersedes: s.link,
        epoch: s.epoch + 1,
      };
    case 'ReplicationPathsFilterWritten':
      return {
        ...s,
        filters: { ...s.filters, [e.data.id]: { mode: e.data.filterMode, paths: e.data.paths } },
      };
    case 'ReplicationPathsFilterDeleted': {
      const { [e.data.id]: _gone, ...filters } = s.filters;
      return { ...s, filters };
    }
    case 'ReplicationKeyPairGenerated':
      return { ...s, keyPair: { publicKey: e.data.publicKey, privateKey: e.data.privateKey } };
    case 'ReplicationEpochObserved':
      return { ...s, epoch: Math.max(s.epoch, e.data.epoch) };
  }
}

export const replay = (mode: ReplicationMode, events: readonly ReplicationStateEvent[]): ModeState =>
  events.reduce(evolve, initialModeState(mode));

const label = (mode: ReplicationMode): string => (mode === 'dr' ? 'DR' : 'performance');

/** The commands of the state table: each checks its condition and answers the events. */
export const decide = {
  primaryEnable(s: ModeState, clusterId: string, primaryClusterAddr: string): ReplicationStateEvent[] {
    if (s.state === 'primary') throw invalidRequest(`this cluster is already a ${label(s.mode)} primary`);
    if (s.state === 'secondary')
      throw invalidRequest(
        `this cluster is a ${label(s.mode)} secondary: promote it instead of enabling primary mode`,
      );
    return [{ type: 'ReplicationPrimaryEnabled', data: { mode: s.mode, clusterId, primaryClusterAddr } }];
  },

  primaryDemote(s: ModeState): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest(`this cluster is not a ${label(s.mode)} primary`);
    return [{ type: 'ReplicationPrimaryDemoted', data: { mode: s.mode } }];
  },

  primaryDisable(s: ModeState): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest(`this cluster is not a ${label(s.mode)} primary`);
    return [{ type: 'ReplicationPrimaryDisabled', data: { mode: s.mode } }];
  },

  secondaryToken(s: ModeState, id: string, psk: string, expiresAtMs: number): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest(`this cluster is not a ${label(s.mode)} primary`);
    if (id === '') throw invalidRequest('missing id');
    if (s.revoked.includes(id))
      throw invalidRequest(`secondary id "${id}" was revoked; pick a new id for the secondary`);
    return [{ type: 'ReplicationSecondaryTokenIssued', data: { mode: s.mode, id, psk, expiresAtMs } }];
  },

  revokeSecondary(s: ModeState, id: string): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest(`this cluster is not a ${label(s.mode)} primary`);
    if (id === '') throw invalidRequest('missing id');
    if (!s.secondaries.some((x) => x.id === id))
      throw invalidRequest(`no secondary with id "${id}" is known to this primary`);
    return [{ type: 'ReplicationSecondaryRevoked', data: { mode: s.mode, id } }];
  },

  secondaryEnable(s: ModeState, link: PrimaryLink): ReplicationStateEvent[] {
    if (s.state === 'primary')
      throw invalidRequest(`this cluster is a ${label(s.mode)} primary: demote or disable it first`);
    if (s.state === 'secondary') throw invalidRequest(`this cluster is already a ${label(s.mode)} secondary`);
    return [{ type: 'ReplicationSecondaryEnabled', data: { mode: s.mode, ...link } }];
  },

  updatePrimary(s: ModeState, link: PrimaryLink | null): ReplicationStateEvent[] {
    if (s.state !== 'secondary') throw invalidRequest(`this cluster is not a ${label(s.mode)} secondary`);
    return [{ type: 'ReplicationPrimaryUpdated', data: { mode: s.mode, link } }];
  },

  secondaryDisable(s: ModeState): ReplicationStateEvent[] {
    if (s.state !== 'secondary') throw invalidRequest(`this cluster is not a ${label(s.mode)} secondary`);
    return [{ type: 'ReplicationSecondaryDisabled', data: { mode: s.mode } }];
  },

  promote(s: ModeState, primaryClusterAddr: string, forced: boolean): ReplicationStateEvent[] {
    if (s.state !== 'secondary') throw invalidRequest(`this cluster is not a ${label(s.mode)} secondary`);
    return [{ type: 'ReplicationSecondaryPromoted', data: { mode: s.mode, primaryClusterAddr, forced } }];
  },

  writePathsFilter(s: ModeState, id: string, filterMode: string, paths: string[]): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest('this cluster is not a performance primary');
    if (filterMode !== 'allow' && filterMode !== 'deny')
      throw invalidRequest(`invalid mode "${filterMode}": must be "allow" or "deny"`);
    const normalised = [...new Set(paths.map(normaliseFilterPath).filter((p) => p !== ''))];
    return [
      { type: 'ReplicationPathsFilterWritten', data: { mode: s.mode, id, filterMode, paths: normalised } },
    ];
  },

  /** A secondary saw a frame of `epoch`: recorded when it is higher than what it knew. */
  observeEpoch(s: ModeState, epoch: number): ReplicationStateEvent[] {
    if (s.state !== 'secondary' || epoch <= s.epoch) return [];
    return [{ type: 'ReplicationEpochObserved', data: { mode: s.mode, epoch } }];
  },

  deletePathsFilter(s: ModeState, id: string): ReplicationStateEvent[] {
    if (s.state !== 'primary') throw invalidRequest('this cluster is not a performance primary');
    if (!(id in s.filters)) return [];
    return [{ type: 'ReplicationPathsFilterDeleted', data: { mode: s.mode, id } }];
  },
};

/** Mount and namespace paths are compared with one trailing slash: "secret" is "secret/". */
export function normaliseFilterPath(path: string): string {
  const trimmed = path.trim().replace(/^\/+/, '');
  if (trimmed === '') return '';
  return trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** The deprecated mount filter's modes onto the paths filter's. */
export function mountFilterModeToPaths(mode: string): 'allow' | 'deny' {
  if (mode === 'whitelist') return 'allow';
  if (mode === 'blacklist') return 'deny';
  throw invalidRequest(`invalid mode "${mode}": must be "whitelist" or "blacklist"`);
}

export const notPrimary = (mode: ReplicationMode): DomainError =>
  invalidRequest(`this cluster is not a ${label(mode)} primary`);
