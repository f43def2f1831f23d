import { isDomainError } from '@coffer/contracts';
import { calculateTtl, humanDuration, mountTtls, SYSTEM_MAX_TTL, type TtlInput } from './token-ttl';

const T0 = Date.UTC(2024, 0, 1, 12, 0, 0);
const base: TtlInput = {
  increment: 0,
  backendTtl: 0,
  period: 0,
  backendMaxTtl: 0,
  explicitMaxTtl: 0,
  startMs: T0,
  nowMs: T0,
  mount: mountTtls(),
};

describe('mountTtls', () => {
  it('falls back to the 32-day system values', () => {
    expect(mountTtls()).toEqual({ defaultTtl: 768 * 3600, maxTtl: 768 * 3600 });
    expect(mountTtls({ default_lease_ttl: 0, max_lease_ttl: 0 })).toEqual({
      defaultTtl: SYSTEM_MAX_TTL,
      maxTtl: SYSTEM_MAX_TTL,
    });
  });

  it('uses tuned values, the default never above the max', () => {
    expect(mountTtls({ default_lease_ttl: 60, max_lease_ttl: 3600 })).toEqual({
      defaultTtl: 60,
      maxTtl: 3600,
    });
    expect(mountTtls({ default_lease_ttl: 0, max_lease_ttl: 3600 })).toEqual({
      defaultTtl: 3600,
      maxTtl: 3600,
    });
  });
});

describe('calculateTtl', () => {
  it('uses the mount default when nothing is asked', () => {
    expect(calculateTtl(base)).toEqual({ ttl: 768 * 3600, warnings: [] });
  });

  it('prefers the increment, then the backend TTL', () => {
    expect(calculateTtl({ ...base, backendTtl: 600 }).ttl).toBe(600);
    expect(calculateTtl({ ...base, backendTtl: 600, increment: 60 }).ttl).toBe(60);
  });

  it('caps at start + the least of mount max, backend max and explicit max, with a warning', () => {
    const r = calculateTtl({ ...base, backendTtl: 7200, explicitMaxTtl: 3600 });
    expect(r.ttl).toBe(3600);
    expect(r.warnings).toEqual([
      'TTL of "2h" exceeded the effective max_ttl of "1h"; TTL value is capped accordingly',
    ]);
    expect(calculateTtl({ ...base, backendTtl: 7200, backendMaxTtl: 1800 }).ttl).toBe(1800);
    expect(calculateTtl({ ...base, mount: { defaultTtl: 100, maxTtl: 50 } }).ttl).toBe(50);
  });

  it('counts the max from the start: a renewal late in life gets what is left', () => {
    const r = calculateTtl({ ...base, backendTtl: 600, explicitMaxTtl: 1000, nowMs: T0 + 700_000 });
    expect(r.ttl).toBe(300);
  });

  it('refuses past the max', () => {
    try {
      calculateTtl({ ...base, explicitMaxTtl: 10, nowMs: T0 + 10_000 });
      throw new Error('expected a failure');
    } catch (e) {
      expect(isDomainError(e) && e.message).toBe('past the max TTL, cannot renew');
    }
  });

  it('gives periodic tokens their period, beyond the mount max only via explicit max', () => {
    expect(calculateTtl({ ...base, period: 300, increment: 9999 }).ttl).toBe(300);
    // late in life, a periodic token still gets a full period (no mount-max horizon)...
    expect(calculateTtl({ ...base, period: 300, nowMs: T0 + 40 * 86_400_000 }).ttl).toBe(300);
    // ...unless explicit_max_ttl bounds it
    expect(calculateTtl({ ...base, period: 300, explicitMaxTtl: 400, nowMs: T0 + 200_000 }).ttl).toBe(200);
  });

  it('caps a period above the max TTL', () => {
    const r = calculateTtl({ ...base, period: 7200, mount: { defaultTtl: 60, maxTtl: 3600 } });
    expect(r.ttl).toBe(3600);
    expect(r.warnings[0]).toBe(
      'period of "2h" exceeded the effective max_ttl of "1h"; period value is capped accordingly',
    );
  });
});

describe('humanDuration', () => {
  it.each([
    [0, '0s'],
    [45, '45s'],
    [90, '1m30s'],
    [1800, '30m'],
    [3600, '1h'],
    [3690, '1h1m30s'],
    [7260, '2h1m'],
    [768 * 3600, '768h'],
    [3605, '1h5s'],
  ])('%d -> %s', (seconds, text) => {
    expect(humanDuration(seconds)).toBe(text);
  });
});
