import { SYSTEM_DEFAULT_LEASE_TTL } from '@coffer/contracts';
import { decideDelete, decideWrite, leaseAdvice } from './flat.decider';

const mount = (defaultTtl = 0) => ({ config: { default_lease_ttl: defaultTtl, max_lease_ttl: 0 } });

describe('unversioned secrets', () => {
  it('write replaces, delete only when present', () => {
    expect(decideWrite({ keyId: 'k', ciphertext: 'c' })).toEqual([
      { type: 'SecretWritten', data: { keyId: 'k', ciphertext: 'c' } },
    ]);
    expect(decideDelete(null)).toEqual([]);
    expect(decideDelete({ keyId: 'k' })).toEqual([{ type: 'SecretDeleted', data: {} }]);
  });

  it('turns a ttl key into lease_duration advice', () => {
    expect(leaseAdvice({ ttl: '1h' }, mount())).toBe(3600);
    expect(leaseAdvice({ ttl: 30 }, mount())).toBe(30);
    expect(leaseAdvice({ ttl: '90' }, mount())).toBe(90);
    expect(leaseAdvice({ lease: '2m' }, mount())).toBe(120);
  });

  it('falls back to the mount default, then the system default', () => {
    expect(leaseAdvice({}, mount(600))).toBe(600);
    expect(leaseAdvice({}, mount())).toBe(SYSTEM_DEFAULT_LEASE_TTL);
    expect(leaseAdvice({ ttl: 'bogus' }, mount())).toBe(SYSTEM_DEFAULT_LEASE_TTL);
    expect(leaseAdvice({ ttl: { nested: 1 } }, mount(5))).toBe(5);
  });
});
