import { judgeEpoch, staleEpochReason, supersededPrimaryReason } from './frame-epoch';
import { serverFrameSchema } from './stream.wire';

describe('frame epochs', () => {
  it('a lower epoch than the highest seen is stale, a higher one newer', () => {
    expect(judgeEpoch(2, 1)).toBe('stale');
    expect(judgeEpoch(2, 2)).toBe('current');
    expect(judgeEpoch(2, 3)).toBe('newer');
    expect(judgeEpoch(0, 0)).toBe('current');
  });

  it('every server frame carries the epoch; one without it does not parse', () => {
    expect(serverFrameSchema.safeParse({ t: 'welcome', clusterId: 'c', epoch: 3 }).success).toBe(true);
    expect(serverFrameSchema.safeParse({ t: 'welcome', clusterId: 'c' }).success).toBe(false);
    expect(serverFrameSchema.safeParse({ t: 'batch', source: 'kv', events: [], epoch: -1 }).success).toBe(
      false,
    );
  });

  it('says why, with both epochs', () => {
    expect(staleEpochReason(3, 2)).toMatch(/epoch 2 is older than this secondary's 3/);
    expect(supersededPrimaryReason(2, 3)).toMatch(/epoch 2\) was superseded: .* epoch 3/);
  });
});
