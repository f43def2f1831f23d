import { merkleRoot, totalWal } from './merkle';

const head = (source: string, lastWal: number, hash = 'a'.repeat(64)) => ({ source, lastWal, hash });

describe('merkleRoot', () => {
  it('does not depend on the order of the logs and ignores empty ones', () => {
    const a = merkleRoot([head('kv', 3), head('core_sys', 9), head('pki', 0)]);
    expect(merkleRoot([head('core_sys', 9), head('kv', 3)])).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with any position or chain head', () => {
    const a = merkleRoot([head('kv', 3), head('core_sys', 9), head('ssh', 1)]);
    expect(merkleRoot([head('kv', 4), head('core_sys', 9), head('ssh', 1)])).not.toBe(a);
    expect(merkleRoot([head('kv', 3, 'b'.repeat(64)), head('core_sys', 9), head('ssh', 1)])).not.toBe(a);
    expect(merkleRoot([head('kv', 3), head('core_sys', 9)])).not.toBe(a);
  });

  it('has a fixed root for no events', () => {
    expect(merkleRoot([])).toBe(merkleRoot([head('kv', 0)]));
  });

  it('sums the WAL numbers', () => {
    expect(totalWal([head('kv', 3), head('core_sys', 9)])).toBe(12);
  });
});
