import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { pluginCatalogContracts as p } from '@coffer/contracts';
import { corePluginStorage } from '@coffer/contracts/plugins';
import { CLUSTER_SECRET, CoreSysHarness } from '../test-support/core-sys-harness';
import { verifyPluginBinary } from './plugin-binary';
import type { PluginEntry } from './plugin-catalog.decider';

const sha = 'cd'.repeat(32);
const secretOf = (plugin: string) =>
  createHmac('sha256', CLUSTER_SECRET).update(`coffer plugin ${plugin}`).digest('base64url');

describe('plugin catalog and plugin storage against Postgres + NATS', () => {
  let h: CoreSysHarness;

  beforeAll(async () => {
    h = await CoreSysHarness.start('plugins', 1);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const params = (name: string) => ({ type: 'secret', name });
  const data = async (c: Parameters<CoreSysHarness['sys']>[0], call: Parameters<CoreSysHarness['sys']>[1]) =>
    ((await h.sys(c, call)) as { data: Record<string, unknown> | null }).data;

  it('registers versions side by side through the event log; the env never reaches the tables in clear', async () => {
    const body = (version: string) => ({
      sha256: sha,
      command: 'totp',
      version,
      env: ['TOKEN=very-secret-env'],
    });
    await h.sys(p.pluginRegister, {
      operation: 'update',
      path: 'plugins/catalog/secret/t',
      params: params('t'),
      body: body(''),
    });
    await h.sys(p.pluginRegister, {
      operation: 'update',
      path: 'plugins/catalog/secret/t',
      params: params('t'),
      body: body('v1.2.0'),
    });
    const listing = await data(p.pluginCatalog, { operation: 'read', path: 'plugins/catalog' });
    const detailed = listing?.['detailed'] as { name: string; version: string }[];
    expect(detailed.filter((e) => e.name === 't').map((e) => e.version)).toEqual(['', 'v1.2.0']);
    const read = await data(p.pluginRead, {
      operation: 'read',
      path: 'plugins/catalog/secret/t',
      params: params('t'),
      query: { version: '1.2.0' },
    });
    expect(read).toMatchObject({ name: 't', version: 'v1.2.0', sha256: sha, builtin: false });
    const { rows } = await sql<{ hit: number }>`
      select count(*)::int as hit from core_sys.plugin_catalog where position('very-secret-env'::bytea in entry) > 0
    `.execute(h.database.db);
    expect(rows[0]?.hit).toBe(0);
    const events = await sql<{ n: number }>`
      select count(*)::int as n from core_sys.event_log where stream like 'plugin-catalog/secret/t/%'
    `.execute(h.database.db);
    expect(events.rows[0]?.n).toBe(2);
    const clear = await sql<{ hit: number }>`
      select count(*)::int as hit from core_sys.event_log where position('very-secret-env'::bytea in payload) > 0
    `.execute(h.database.db);
    expect(clear.rows[0]?.hit).toBe(0);
  });

  it('refuses a bad sha256 and stores nothing', async () => {
    const failure = await h.failure(
      h.sys(p.pluginRegister, {
        operation: 'update',
        path: 'plugins/catalog/secret/bad',
        params: params('bad'),
        body: { sha256: 'nothex', command: 'x' },
      }),
    );
    expect(failure).toMatchObject({
      code: 'invalid_request',
      message: 'Could not decode SHA-256 value from Hex',
    });
    const listing = await data(p.pluginCatalog, { operation: 'read', path: 'plugins/catalog' });
    expect((listing?.['secret'] as string[]).includes('bad')).toBe(false);
  });

  it('keeps plugin values per mount behind the barrier, for the plugin holding the secret only', async () => {
    const call = (
      request: Parameters<typeof h.client.request<typeof corePluginStorage>>[1]['request'],
      secret = secretOf('t'),
    ) => h.client.request(corePluginStorage, { plugin: 't', secret, mount: 'm1', request });
    expect(await h.failure(call({ op: 'get', key: 'a' }, 'wrong'))).toMatchObject({
      code: 'permission_denied',
    });
    await call({ op: 'put', key: 'keys/a', value: 'plain-needle-value' });
    await call({ op: 'put', key: 'keys/b/c', value: 'x' });
    expect((await call({ op: 'get', key: 'keys/a' })).value).toBe('plain-needle-value');
    expect((await call({ op: 'list', prefix: 'keys/' })).keys).toEqual(['a', 'b/']);
    const other = await h.client.request(corePluginStorage, {
      plugin: 't',
      secret: secretOf('t'),
      mount: 'm2',
      request: { op: 'get', key: 'keys/a' },
    });
    expect(other.value).toBeNull();
    const { rows } = await sql<{ hit: number }>`
      select count(*)::int as hit from core_sys.plugin_storage where position('plain-needle-value'::bytea in value) > 0
    `.execute(h.database.db);
    expect(rows[0]?.hit).toBe(0);
    await call({ op: 'delete', key: 'keys/a' });
    expect((await call({ op: 'get', key: 'keys/a' })).value).toBeNull();
  });
});

describe('plugin binaries on disk', () => {
  let dir: string;
  let outside: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-plugin-dir-'));
    outside = await mkdtemp(path.join(tmpdir(), 'coffer-plugin-out-'));
    await writeFile(path.join(dir, 'ok'), 'plugin bytes');
    await writeFile(path.join(outside, 'evil'), 'plugin bytes');
    await symlink(path.join(outside, 'evil'), path.join(dir, 'link'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const entry = (
    command: string,
    hash = createHash('sha256').update('plugin bytes').digest('hex'),
  ): PluginEntry => ({
    type: 'secret',
    name: 'p',
    version: '',
    sha256: hash,
    command,
    args: [],
    env: [],
  });

  it('accepts the binary whose SHA-256 matches', async () => {
    expect(await verifyPluginBinary(dir, entry('ok'))).toBe(path.join(dir, 'ok'));
  });

  it('refuses a changed binary, a missing one, a symlink out of the directory, and no directory', async () => {
    await expect(verifyPluginBinary(dir, entry('ok', 'ab'.repeat(32)))).rejects.toThrow(
      'checksums did not match',
    );
    await expect(verifyPluginBinary(dir, entry('missing'))).rejects.toThrow('cannot be read');
    await expect(verifyPluginBinary(dir, entry('link'))).rejects.toThrow('inside the plugin directory');
    await expect(verifyPluginBinary(dir, entry('../x'))).rejects.toThrow('inside the plugin directory');
    await expect(verifyPluginBinary(undefined, entry('ok'))).rejects.toThrow('no plugin directory');
  });
});
