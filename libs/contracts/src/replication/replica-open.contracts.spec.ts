import { REPLICA_OPEN_MAX_ROWS, replicaOpenable, replicaOpenContract } from './replica-open.contracts';

describe('replication.replica.open', () => {
  it("opens an engine's whole replica log, and of core-sys's only the mount table", () => {
    expect(replicaOpenable('pki', 'pki-role/m/web')).toBe(true);
    expect(replicaOpenable('oidc', 'oidc-config/key/-/signer')).toBe(true);
    expect(replicaOpenable('core_sys', 'mounts/table')).toBe(true);
    expect(replicaOpenable('core_sys', 'token/abc')).toBe(false);
    expect(replicaOpenable('core_sys', 'mounts/table/x')).toBe(false);
  });

  it('names only replicated services (each keeps a replica log), and a bounded number of rows', () => {
    const parse = (req: unknown) => replicaOpenContract.request.safeParse(req).success;
    expect(parse({ schema: 'ssh', wals: [1, 2] })).toBe(true);
    expect(parse({ schema: 'kv', wals: [1] })).toBe(true);
    expect(parse({ schema: 'replication', wals: [1] })).toBe(false);
    expect(parse({ schema: 'ssh', wals: [] })).toBe(false);
    expect(
      parse({ schema: 'ssh', wals: Array.from({ length: REPLICA_OPEN_MAX_ROWS + 1 }, (_, i) => i + 1) }),
    ).toBe(false);
    expect(parse({ schema: 'ssh', wals: [1], payload: 'x' })).toBe(false);
  });

  it('answers each row by its WAL index and opened data only', () => {
    const parse = (res: unknown) => replicaOpenContract.response.safeParse(res).success;
    expect(parse({ events: [{ wal: 3, data: { a: 1 } }] })).toBe(true);
    expect(parse({ events: [{ wal: 3, data: {}, payload: 'sealed' }] })).toBe(false);
  });
});
