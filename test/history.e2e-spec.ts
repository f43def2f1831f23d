import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPgDb } from '@coffer/event-store';
import { cliRunner, startTarget, START_TIMEOUT_MS, TARGETS, type CliRunner, type Target } from './support';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '..');
const run = promisify(execFile);

/** tools/history-verify.ts, the standalone verifier: exit code and output. */
async function standalone(target: Target, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      [
        '-r',
        './tools/register.js',
        'tools/history-verify.ts',
        '--addr',
        target.baseUrl,
        '--token',
        target.rootToken,
        ...args,
      ],
      { cwd: REPO },
    );
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, out: e.stderr ?? '' };
  }
}

/**
 * sys/history proofs over HTTP, checked by the two client verifiers (`coffer history verify` and
 * tools/history-verify.ts) with no trust in the server, in dev mode and against a cluster.
 */
describe.each(TARGETS)('%s: history proofs', (kind) => {
  let target: Target;
  let cli: CliRunner;
  let dir: string;
  const asRoot = () => ({ env: { COFFER_TOKEN: target.rootToken } });

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'history', readyTimeoutMs: 150_000 });
    cli = cliRunner(target.baseUrl);
    dir = mkdtempSync(path.join(tmpdir(), 'coffer-history-'));
    for (let i = 0; i < 20; i++) {
      expect((await target.root.put(`secret/data/h${i}`, { data: { v: String(i) } })).status).toBe(200);
    }
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    cli?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the logs and serves signed tree heads and proofs', async () => {
    const logs = await target.root.get('sys/history/logs');
    expect(logs.status).toBe(200);
    expect(logs.body.data.keys).toEqual(expect.arrayContaining(['core_sys', 'kv']));
    const head = await target.root.get('sys/history/tree-head', { query: { log: 'kv' } });
    expect(head.status).toBe(200);
    expect(head.body.data).toMatchObject({ log: 'kv', tree_size: expect.any(Number) });
    expect(head.body.data.tree_size).toBeGreaterThanOrEqual(20);
    const proof = await target.root.get('sys/history/proof', { query: { log: 'kv', wal: 3 } });
    expect(proof.status).toBe(200);
    expect(proof.body.data).toMatchObject({ leaf_index: 2, entry: { wal: 3 } });
    const bad = await target.root.get('sys/history/proof', { query: { log: 'kv', wal: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.any(String)]);
  });

  it('needs sudo on sys/history/* (the key only needs read)', async () => {
    const policy = 'path "sys/history/*" { capabilities = ["read", "list"] }';
    expect((await target.root.put('sys/policies/acl/history-reader', { policy })).status).toBe(204);
    const token = (await target.root.post('auth/token/create', { policies: ['history-reader'] })).body.auth
      .client_token as string;
    const reader = target.root.withToken(token);
    expect((await reader.get('sys/history/key')).status).toBe(200);
    expect((await reader.get('sys/history/tree-head')).status).toBe(403);
    expect((await target.anon.get('sys/history/key')).status).toBe(403);
  });

  it('coffer history verify proves events and, with -state, that the log only grew', async () => {
    const state = path.join(dir, 'kv-head.json');
    const first = await cli.json(['history', 'verify', '-log=kv', '-wal=1,2,5', `-state=${state}`], asRoot());
    expect(first.data).toMatchObject({ log: 'kv', events_proven: [1, 2, 5], consistent_with: null });
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved).toMatchObject({
      log: 'kv',
      tree_size: first.data.tree_size,
      root_hash: first.data.root_hash,
    });

    await target.root.put('secret/data/after', { data: { v: 'x' } });
    const second = await cli.json(['history', 'verify', '-log=kv', `-state=${state}`], asRoot());
    expect(second.data.consistent_with).toBe(first.data.tree_size);
    expect(second.data.tree_size).toBeGreaterThan(first.data.tree_size);
    expect(second.data.key).toBe('pinned');

    // a forged trusted head is refused (exit 1, local verification failure)
    writeFileSync(state, JSON.stringify({ ...saved, root_hash: 'ab'.repeat(32) }));
    const forged = await cli.run(['history', 'verify', '-log=kv', `-state=${state}`], asRoot());
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain('verification failed (consistency with the tree of');
  });

  it('the standalone verifier checks the same proofs', async () => {
    const head = (await target.root.get('sys/history/tree-head', { query: { log: 'core_sys' } })).body.data;
    const ok = await standalone(target, [
      '--log',
      'core_sys',
      '--wal',
      '1,2,3',
      '--trusted-size',
      String(head.tree_size - 1),
      '--trusted-root',
      (await target.root.get('sys/history/tree-head', { query: { tree_size: head.tree_size - 1 } })).body.data
        .root_hash,
    ]);
    expect(ok).toEqual({ code: 0, out: expect.stringContaining('verified: log core_sys') });
    const forged = await standalone(target, ['--trusted-size', '2', '--trusted-root', 'cd'.repeat(32)]);
    expect(forged.code).toBe(1);
  });

  it('answers past states and who could read a path then', async () => {
    const v1 = 'path "team/*" { capabilities = ["read"] }';
    expect((await target.root.put('sys/policies/acl/team', { policy: v1 })).status).toBe(204);
    const before = (await target.root.get('sys/history/tree-head')).body.data.tree_size as number;
    const token = (await target.root.post('auth/token/create', { policies: ['team'] })).body.auth;
    const headNow = async () =>
      (await target.root.get('sys/history/tree-head')).body.data.tree_size as number;
    // other writers (sweepers, leases) may append between our calls: instants are taken, not assumed
    const withToken = await headNow();
    expect(
      (
        await target.root.put('sys/policies/acl/team', {
          policy: 'path "other/*" { capabilities = ["read"] }',
        })
      ).status,
    ).toBe(204);

    const past = await target.root.get('sys/history/state/sys/policies/acl/team', { query: { at: before } });
    expect(past.status).toBe(200);
    expect(past.body.data).toMatchObject({
      path: 'sys/policies/acl/team',
      wal: before,
      state: { name: 'team', policy: v1 },
    });
    const mounts = await target.root.get('sys/history/state/sys/mounts', { query: { at: before } });
    expect(mounts.body.data.state['secret/']).toMatchObject({ type: 'kv' });

    const now = await headNow();
    const explainAt = (at: number) =>
      target.root.post('sys/history/explain', {
        accessor: token.accessor,
        path: 'team/x',
        operation: 'read',
        at: String(at),
      });
    const then = await explainAt(withToken);
    expect(then.status).toBe(200);
    expect(then.body.data).toMatchObject({ found: true, allowed: true, granted_by: ['team'] });
    expect((await explainAt(now)).body.data).toMatchObject({ found: true, allowed: false });
    const who = await target.root.post('sys/history/access', {
      path: 'team/x',
      operation: 'read',
      at: String(withToken),
    });
    expect(who.body.data.accessors).toContain(token.accessor);
    expect(who.body.data.policies).toEqual(expect.arrayContaining(['team', 'root']));
    expect((await target.root.get('sys/history/state/sys/health')).status).toBe(400);
  });

  it('answers an entity and its group as they read before a change', async () => {
    const entity = (await target.root.post('identity/entity', { name: 'hist-e', policies: ['a'] })).body.data
      .id as string;
    const group = (await target.root.post('identity/group', { name: 'hist-g', member_entity_ids: [entity] }))
      .body.data.id as string;
    const liveEntity = (await target.root.get(`identity/entity/id/${entity}`)).body.data;
    const liveGroup = (await target.root.get(`identity/group/id/${group}`)).body.data;
    const then = (await target.root.get('sys/history/tree-head')).body.data.tree_size as number;
    await target.root.post(`identity/group/id/${group}`, { member_entity_ids: [] });
    await target.root.post(`identity/entity/id/${entity}`, { policies: ['b'] });

    const pastEntity = await target.root.get(`sys/history/state/identity/entity/id/${entity}`, {
      query: { at: then },
    });
    expect(pastEntity.status).toBe(200);
    expect(pastEntity.body.data.state).toEqual(liveEntity);
    expect(pastEntity.body.data.state.group_ids).toEqual([group]);
    const pastGroup = await target.root.get(`sys/history/state/identity/group/id/${group}`, {
      query: { at: then },
    });
    expect(pastGroup.body.data.state).toEqual(liveGroup);
    const now = await target.root.get(`sys/history/state/identity/entity/id/${entity}`);
    expect(now.body.data.state).toMatchObject({ policies: ['b'], group_ids: [] });
    expect((await target.root.get('sys/history/state/identity/entity/id/nope')).status).toBe(404);
  });

  it('the change feed says who wrote secret/data/x and changed a policy, never the values', async () => {
    const v1 = 'path "secret/data/feed-*" { capabilities = ["read"] }';
    expect((await target.root.put('sys/policies/acl/feed-writer', { policy: v1 })).status).toBe(204);
    const created = (await target.root.post('auth/token/create', { policies: ['feed-writer'] })).body.auth;
    const writer = target.root.withToken(created.client_token as string);
    const v2 = 'path "secret/data/feed-*" { capabilities = ["create", "update", "read"] }';
    expect((await target.root.put('sys/policies/acl/feed-writer', { policy: v2 })).status).toBe(204);
    expect((await writer.put('secret/data/feed-x', { data: { v: 'do-not-show' } })).status).toBe(200);

    const kv = await target.root.get('sys/history/changes', { query: { path_prefix: 'secret/data/feed-' } });
    expect(kv.status).toBe(200);
    expect(kv.body.data.next).toBeNull();
    expect(kv.body.data.changes).toEqual([
      expect.objectContaining({
        log: 'kv',
        path: 'secret/data/feed-x',
        accessor: created.accessor,
        request_id: expect.any(String),
        type: expect.any(String),
      }),
    ]);
    expect(JSON.stringify(kv.body)).not.toContain('do-not-show');

    const sys = await target.root.get('sys/history/changes', {
      query: { path_prefix: 'sys/policies/acl/feed-writer', log: 'core_sys' },
    });
    expect(sys.body.data.changes.map((ch: { type: string }) => ch.type)).toEqual([
      'PolicyWritten',
      'PolicyWritten',
    ]);
    const rootAccessor = (await target.root.get('auth/token/lookup-self')).body.data.accessor;
    for (const ch of sys.body.data.changes) expect(ch.accessor).toBe(rootAccessor);

    // every log, page by page: the kv write and the policy writes are all there, once
    const seen: string[] = [];
    let after = '';
    for (let pages = 0; pages < 50; pages++) {
      const page = await target.root.get('sys/history/changes', {
        query: { path_prefix: 's', limit: 2, ...(after ? { after } : {}) },
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.changes.map((ch: { log: string; wal: number }) => `${ch.log}:${ch.wal}`));
      if (page.body.data.next === null) break;
      after = page.body.data.next as string;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([`kv:${kv.body.data.changes[0].wal}`]));

    // sudo, as the other history routes
    const reader = target.root.withToken(created.client_token as string);
    expect((await reader.get('sys/history/changes')).status).toBe(403);
    expect((await target.root.get('sys/history/changes', { query: { limit: 0 } })).status).toBe(400);
  });

  describe('paginated LIST (?after=&limit=)', () => {
    /** Every key of a LIST, page by page, following `next`. */
    const walk = async (path: string, limit: number, between?: () => Promise<void>): Promise<string[]> => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const res = await target.root.list(path, {
          query: { limit, ...(after === undefined ? {} : { after }) },
        });
        expect(res.status).toBe(200);
        expect(res.body.data.keys.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.data.keys);
        await between?.();
        if (res.body.data.next === null) return seen;
        after = res.body.data.next as string;
      }
      throw new Error('no last page');
    };

    it('pages kv metadata, policies, token roles, accessors and entities like their full lists', async () => {
      await target.root.post('auth/token/roles/pager-a', {});
      await target.root.post('auth/token/roles/pager-b', {});
      await target.root.post('identity/entity', { name: 'pager-1' });
      await target.root.post('identity/entity', { name: 'pager-2' });
      for (const path of [
        'secret/metadata',
        'sys/policies/acl',
        'auth/token/roles',
        'auth/token/accessors',
        'identity/entity/id',
      ]) {
        const full = await target.root.list(path);
        expect(full.status).toBe(200);
        expect(full.body.data.next).toBeUndefined();
        const sorted = [...(full.body.data.keys as string[])].sort((a, b) =>
          Buffer.compare(Buffer.from(a), Buffer.from(b)),
        );
        expect(await walk(path, 3)).toEqual(sorted);
      }
      const entities = await target.root.list('identity/entity/id', { query: { limit: 1 } });
      expect(Object.keys(entities.body.data.key_info)).toEqual(entities.body.data.keys);
    });

    it('neither skips nor repeats a key while others are written and deleted between pages', async () => {
      for (let i = 1; i <= 8; i++) await target.root.put(`secret/data/zz-gone-${i}`, { data: { v: '1' } });
      const steady = (k: string) => !k.startsWith('a-new-') && !k.startsWith('zz-gone-');
      const before = ((await target.root.list('secret/metadata')).body.data.keys as string[]).filter(steady);
      let n = 0;
      const seen = await walk('secret/metadata', 4, async () => {
        n += 1;
        // one key before every cursor, one after it deleted
        await target.root.put(`secret/data/a-new-${n}`, { data: { v: '1' } });
        await target.root.delete(`secret/metadata/zz-gone-${n}`);
      });
      expect(seen.filter(steady)).toEqual(
        [...before].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('refuses a bad limit with a 400', async () => {
      const res = await target.root.list('sys/policies/acl', { query: { limit: 0 } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(['limit must be a positive integer']);
    });
  });

  if (kind === 'cluster') {
    it('a changed byte in the stored kv log fails both client verifiers', async () => {
      const { db, close } = createPgDb(target.databaseUrl as string, { max: 1 });
      try {
        const row = await db
          .withSchema('kv')
          .selectFrom('event_log')
          .select(['wal', 'payload'])
          .where('wal', '=', 4)
          .executeTakeFirstOrThrow();
        const payload = Buffer.from(row.payload as Buffer);
        payload.writeUInt8(payload.readUInt8(0) ^ 0xff, 0);
        await db.withSchema('kv').updateTable('event_log').set({ payload }).where('wal', '=', 4).execute();
      } finally {
        await close();
      }
      const viaCli = await cli.run(['history', 'verify', '-log=kv', '-wal=4'], asRoot());
      expect(viaCli.code).toBe(1);
      expect(viaCli.stderr).toContain('event 4: its stored bytes do not hash to its chain hash');
      const viaScript = await standalone(target, ['--log', 'kv', '--wal', '4']);
      expect(viaScript).toEqual({ code: 1, out: expect.stringContaining('event 4: its stored bytes') });
      expect((await cli.run(['history', 'verify', '-log=kv', '-wal=5'], asRoot())).code).toBe(0);
    });
  }
});
