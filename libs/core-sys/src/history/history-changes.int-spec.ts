import { historyContracts as hc, sysContracts as c, type CallerContext } from '@coffer/contracts';
import { CoreSysHarness } from '../test-support/core-sys-harness';

interface Change {
  log: string;
  wal: number;
  time: string;
  type: string;
  stream: string;
  path: string | null;
  accessor: string | null;
  entity_id: string | null;
  request_id: string | null;
}
interface Feed {
  changes: Change[];
  next: string | null;
}

/**
 * The change feed against real Postgres + NATS: the event store records the caller of the
 * request being served (accessor, entity, request id and path, from the transport headers) beside
 * each event it appends, and sys/history/changes reads it back, filtered and paginated, without
 * the events' values.
 */
describe('history: change feed (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  const alice: Partial<CallerContext> = { accessor: 'acc-alice', entityId: 'ent-alice' };
  const bob: Partial<CallerContext> = { accessor: 'acc-bob' };

  const feed = async (query: Record<string, string>): Promise<Feed> =>
    (await h.sys(hc.changes, { operation: 'read', path: 'history/changes', query })).data as Feed;
  const writePolicy = (name: string, caller: Partial<CallerContext>, requestPath?: string) =>
    h.sys(
      c.policyWrite,
      {
        operation: 'update',
        path: `policies/acl/${name}`,
        params: { name },
        body: { policy: `path "secret-${name}/*" { capabilities = ["read"] }` },
      },
      { ...caller, ...(requestPath !== undefined ? { path: requestPath } : {}) },
    );

  beforeAll(async () => {
    h = await CoreSysHarness.start('history-changes', 1);
    h.clock.now = new Date('2025-03-01T00:00:00Z');
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    h.clock.now = new Date('2025-03-02T10:00:00Z');
    await writePolicy('feed-a', alice, 'sys/policies/acl/feed-a');
    h.clock.now = new Date('2025-03-03T10:00:00Z');
    await writePolicy('feed-b', bob, 'sys/policies/acl/feed-b');
    h.clock.now = new Date('2025-03-04T10:00:00Z');
    await writePolicy('feed-a', bob, 'sys/policies/acl/feed-a');
    await h.sys(
      c.policyDelete,
      { operation: 'delete', path: 'policies/acl/feed-b', params: { name: 'feed-b' } },
      { ...alice, path: 'sys/policies/acl/feed-b' },
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  it('answers who changed what, when, in time order, without values', async () => {
    const res = await feed({ path_prefix: 'sys/policies/acl/feed-' });
    expect(res.next).toBeNull();
    expect(
      res.changes.map((ch) => [ch.log, ch.type, ch.stream, ch.path, ch.accessor, ch.entity_id, ch.time]),
    ).toEqual([
      [
        'core_sys',
        'PolicyWritten',
        'policy/acl/feed-a',
        'sys/policies/acl/feed-a',
        'acc-alice',
        'ent-alice',
        '2025-03-02T10:00:00.000Z',
      ],
      [
        'core_sys',
        'PolicyWritten',
        'policy/acl/feed-b',
        'sys/policies/acl/feed-b',
        'acc-bob',
        null,
        '2025-03-03T10:00:00.000Z',
      ],
      [
        'core_sys',
        'PolicyWritten',
        'policy/acl/feed-a',
        'sys/policies/acl/feed-a',
        'acc-bob',
        null,
        '2025-03-04T10:00:00.000Z',
      ],
      [
        'core_sys',
        'PolicyDeleted',
        'policy/acl/feed-b',
        'sys/policies/acl/feed-b',
        'acc-alice',
        'ent-alice',
        '2025-03-04T10:00:00.000Z',
      ],
    ]);
    for (const ch of res.changes) expect(ch.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(res.changes.map((ch) => ch.request_id)).size).toBe(4);
    // the policies' text is a value: it never shows
    expect(JSON.stringify(res)).not.toContain('secret-feed');
  });

  it('pages with after/limit and next, and filters by time', async () => {
    const seen: Change[] = [];
    let after = '';
    for (;;) {
      const page = await feed({ path_prefix: 'sys/policies/acl/feed-', limit: '1', after });
      seen.push(...page.changes);
      if (page.next === null) break;
      expect(page.changes).toHaveLength(1);
      after = page.next;
    }
    expect(seen.map((ch) => ch.wal)).toEqual(
      (await feed({ path_prefix: 'sys/policies/acl/feed-' })).changes.map((ch) => ch.wal),
    );
    expect(seen).toHaveLength(4);

    const window = await feed({
      path_prefix: 'sys/policies/acl/',
      since: '2025-03-03T00:00:00Z',
      until: '2025-03-03T23:59:59Z',
    });
    expect(window.changes.map((ch) => [ch.stream, ch.accessor])).toEqual([['policy/acl/feed-b', 'acc-bob']]);
  });

  it('reads events appended without a request path or before actors were recorded', async () => {
    const all = await feed({ log: 'core_sys', limit: '1000', until: '2025-03-01T00:00:00Z' });
    expect(all.changes.length).toBeGreaterThan(0);
    // init and unseal ran as the harness's root caller, with no request path
    for (const ch of all.changes) expect(ch.path).toBeNull();
  });

  it('refuses bad parameters with 400s', async () => {
    const bad = async (query: Record<string, string>) =>
      (await h.failure(h.sys(hc.changes, { operation: 'read', path: 'history/changes', query }))).code;
    expect(await bad({ limit: '0' })).toBe('invalid_request');
    expect(await bad({ limit: '5000' })).toBe('invalid_request');
    expect(await bad({ since: 'yesterday' })).toBe('invalid_request');
    expect(await bad({ after: 'garbage' })).toBe('invalid_request');
    expect(await bad({ log: 'no_such_log' })).toBe('invalid_request');
  });
});
