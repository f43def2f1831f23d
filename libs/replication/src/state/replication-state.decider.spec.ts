import {
  decide,
  evolve,
  initialModeState,
  replay,
  type ModeState,
  type PrimaryLink,
} from './replication-state.decider';
import type { ReplicationStateEvent } from './replication-state.events';

const link: PrimaryLink = {
  clusterId: 'c1',
  secondaryId: 'b',
  primaryClusterAddr: '10.0.0.1:8201',
  primaryApiAddr: 'https://a:8200',
  psk: 'k',
};

const run = (s: ModeState, events: ReplicationStateEvent[]): ModeState => events.reduce(evolve, s);
const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
};

describe('replication state table', () => {
  const disabled = initialModeState('dr');
  const primary = run(disabled, decide.primaryEnable(disabled, 'c1', ''));

  it('disabled -> primary with a cluster id; enabling twice is refused', () => {
    expect(primary).toEqual(expect.objectContaining({ state: 'primary', clusterId: 'c1' }));
    expect(errorOf(() => decide.primaryEnable(primary, 'c2', ''))).toBe(
      'this cluster is already a DR primary',
    );
  });

  it('secondary-token and revoke-secondary: a revoked id never comes back', () => {
    const issued = run(primary, decide.secondaryToken(primary, 'b', 'k', 1));
    expect(issued.secondaries.map((x) => x.id)).toEqual(['b']);
    expect(errorOf(() => decide.secondaryToken(primary, '', 'k', 1))).toBe('missing id');
    const revoked = run(issued, decide.revokeSecondary(issued, 'b'));
    expect(revoked.secondaries).toEqual([]);
    expect(revoked.revoked).toEqual(['b']);
    expect(errorOf(() => decide.secondaryToken(revoked, 'b', 'k', 1))).toMatch(/was revoked/);
  });

  it('demote keeps the cluster id; disable forgets it and a re-enable makes a new one', () => {
    const demoted = run(primary, decide.primaryDemote(primary));
    expect(demoted).toEqual(expect.objectContaining({ state: 'secondary', clusterId: 'c1', link: null }));
    expect(errorOf(() => decide.primaryEnable(demoted, 'c2', ''))).toMatch(/promote it instead/);
    const off = run(primary, decide.primaryDisable(primary));
    expect(off).toEqual(expect.objectContaining({ state: 'disabled', clusterId: null }));
    expect(run(off, decide.primaryEnable(off, 'c2', '')).clusterId).toBe('c2');
  });

  it('secondary enable, update-primary (blank clears), promote, disable', () => {
    const secondary = run(disabled, decide.secondaryEnable(disabled, link));
    expect(secondary).toEqual(
      expect.objectContaining({
        state: 'secondary',
        clusterId: 'c1',
        knownPrimaryClusterAddrs: ['10.0.0.1:8201'],
      }),
    );
    expect(errorOf(() => decide.secondaryEnable(primary, link))).toMatch(/demote or disable it first/);
    const moved = run(
      secondary,
      decide.updatePrimary(secondary, { ...link, primaryClusterAddr: '10.0.0.2:8201' }),
    );
    expect(moved.knownPrimaryClusterAddrs).toEqual(['10.0.0.1:8201', '10.0.0.2:8201']);
    const cleared = run(moved, decide.updatePrimary(moved, null));
    expect(cleared).toEqual(
      expect.objectContaining({ state: 'secondary', link: null, knownPrimaryClusterAddrs: [] }),
    );
    const promoted = run(secondary, decide.promote(secondary, '', true));
    expect(promoted).toEqual(expect.objectContaining({ state: 'primary', clusterId: 'c1', secondaries: [] }));
    expect(run(secondary, decide.secondaryDisable(secondary)).state).toBe('disabled');
    expect(errorOf(() => decide.promote(primary, '', false))).toBe('this cluster is not a DR secondary');
  });

  it('paths filters: modes checked, paths normalised, delete of none is a no-op', () => {
    const perf = replay('performance', [
      {
        type: 'ReplicationPrimaryEnabled',
        data: { mode: 'performance', clusterId: 'c', primaryClusterAddr: '' },
      },
    ]);
    expect(errorOf(() => decide.writePathsFilter(perf, 'b', 'whitelist', []))).toMatch(
      /must be "allow" or "deny"/,
    );
    const filtered = run(perf, decide.writePathsFilter(perf, 'b', 'deny', ['secret', '/ns1/', 'secret/']));
    expect(filtered.filters['b']).toEqual({ mode: 'deny', paths: ['secret/', 'ns1/'] });
    expect(decide.deletePathsFilter(perf, 'b')).toEqual([]);
    expect(run(filtered, decide.deletePathsFilter(filtered, 'b')).filters).toEqual({});
  });

  it('epoch: bumped on enable, demote and promote; a secondary records only a higher one', () => {
    expect(primary.epoch).toBe(1);
    const secondary = run(disabled, decide.secondaryEnable(disabled, link));
    expect(secondary.epoch).toBe(0);
    const seen = run(secondary, decide.observeEpoch(secondary, 1));
    expect(seen.epoch).toBe(1);
    expect(decide.observeEpoch(seen, 1)).toEqual([]);
    expect(decide.observeEpoch(seen, 0)).toEqual([]);
    expect(decide.observeEpoch(primary, 5)).toEqual([]);
    // the promoted secondary stamps a later epoch than the primary it was promoted away from
    const promoted = run(seen, decide.promote(seen, '10.0.0.2:8201', false));
    expect(promoted.epoch).toBe(2);
    // the old primary, demoted (fenced), follows the promoted cluster's epoch, not its own
    const demoted = run(primary, decide.primaryDemote(primary));
    expect(demoted.epoch).toBe(2);
    // a fresh secondary/enable (wiped, maybe another set) learns the epoch again
    const off = run(seen, decide.secondaryDisable(seen));
    expect(run(off, decide.secondaryEnable(off, link)).epoch).toBe(0);
  });
});
