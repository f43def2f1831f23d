import { EventRegistry, EventStore } from '@coffer/event-store';
import { kvV2, type MountInfo } from '@coffer/contracts';
import { KV_EVENT_TYPES } from '../kv.events';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

describe('kv v2 versions, metadata and config (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  beforeAll(async () => {
    h = await startKvHarness('kv2_lifecycle');
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    mount = h.mount('kv-v2');
    h.clock.now = new Date();
  });

  const write = (path: string, data: Record<string, unknown>) =>
    h.call(kvV2.dataWrite, { mount, operation: 'create', path: `data/${path}`, body: { data } });
  const read = (path: string, version?: number) =>
    h.call(kvV2.dataRead, {
      mount,
      operation: 'read',
      path: `data/${path}`,
      query: version ? { version: String(version) } : {},
    });
  const readFail = (path: string, version?: number) =>
    h.fail(kvV2.dataRead, {
      mount,
      operation: 'read',
      path: `data/${path}`,
      query: version ? { version: String(version) } : {},
    });
  const versions = (contract: typeof kvV2.versionsDelete, path: string, list: unknown) =>
    h.call(contract, {
      mount,
      operation: 'update',
      path: `x/${path}`,
      params: { path },
      body: { versions: list },
    });
  const metadata = (path: string) =>
    h.call(kvV2.metadataRead, { mount, operation: 'read', path: `metadata/${path}` });

  it('soft-deletes, undeletes and destroys, answering 404 with metadata like Vault', async () => {
    await write('d', { v: 1 });
    await write('d', { v: 2 });
    await h.call(kvV2.dataDelete, { mount, operation: 'delete', path: 'data/d' });
    const deleted = await readFail('d');
    expect(deleted).toMatchObject({
      code: 'not_found',
      data: { data: null, metadata: { version: 2, destroyed: false } },
    });
    await expect(read('d', 1)).resolves.toMatchObject({ data: { data: { v: 1 } } });
    await versions(kvV2.versionsUndelete, 'd', [2]);
    expect((await read('d')).data).toMatchObject({ data: { v: 2 }, metadata: { deletion_time: '' } });
    await versions(kvV2.versionsDelete, 'd', '1,2');
    expect(await readFail('d', 1)).toMatchObject({ data: { data: null } });
    await versions(kvV2.versionsDestroy, 'd', [1]);
    expect(await readFail('d', 1)).toMatchObject({ data: { data: null, metadata: { destroyed: true } } });
    await versions(kvV2.versionsUndelete, 'd', [1, 2]);
    expect(await readFail('d', 1)).toMatchObject({ data: { metadata: { destroyed: true } } });
    expect((await read('d', 2)).data).toMatchObject({ data: { v: 2 } });
    expect(
      await h.fail(kvV2.versionsDestroy, { mount, operation: 'update', path: 'destroy/d', body: {} }),
    ).toMatchObject({
      message: 'no version number provided',
    });
    expect(
      await h.fail(kvV2.versionsDelete, {
        mount,
        operation: 'update',
        path: 'delete/d',
        body: { versions: [] },
      }),
    ).toMatchObject({
      message: 'No version number provided',
    });
  });

  it('reads metadata with the version history and custom metadata', async () => {
    await write('m', { a: 1 });
    await write('m', { a: 2 });
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'update',
      path: 'metadata/m',
      body: { max_versions: 5, delete_version_after: '1h', custom_metadata: { owner: 'team-a', n: 1 } },
    });
    const meta = (await metadata('m')).data as Record<string, unknown>;
    expect(meta).toEqual({
      cas_required: false,
      created_time: expect.any(String),
      current_version: 2,
      custom_metadata: { owner: 'team-a', n: '1' },
      delete_version_after: '1h0m0s',
      max_versions: 5,
      oldest_version: 0,
      updated_time: expect.any(String),
      versions: {
        '1': { created_time: expect.any(String), deletion_time: '', destroyed: false },
        '2': { created_time: expect.any(String), deletion_time: '', destroyed: false },
      },
    });
    expect((await read('m')).data).toMatchObject({
      metadata: { custom_metadata: { owner: 'team-a', n: '1' } },
    });
    await h.call(kvV2.metadataPatch, {
      mount,
      operation: 'patch',
      path: 'metadata/m',
      body: { custom_metadata: { owner: null, env: 'prod' }, cas_required: true },
    });
    expect((await metadata('m')).data).toMatchObject({
      custom_metadata: { n: '1', env: 'prod' },
      cas_required: true,
      max_versions: 5,
    });
    expect(
      await h.fail(kvV2.metadataPatch, {
        mount,
        operation: 'patch',
        path: 'metadata/none',
        body: { max_versions: 1 },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
  });

  it('creates metadata for a missing key without a version, and validates it', async () => {
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'create',
      path: 'metadata/new',
      body: { custom_metadata: { a: 'b' } },
    });
    expect((await metadata('new')).data).toMatchObject({
      current_version: 0,
      versions: {},
      custom_metadata: { a: 'b' },
    });
    expect(await readFail('new')).toMatchObject({ code: 'not_found', data: undefined });
    const bad = await h.fail(kvV2.metadataWrite, {
      mount,
      operation: 'create',
      path: 'metadata/bad',
      body: { custom_metadata: { k: '' } },
    });
    expect(bad.message).toContain('custom_metadata validation failed: length of value for key "k" is 0');
    const engine = await h.call(kvV2.configWrite, {
      mount,
      operation: 'update',
      path: 'config',
      body: { cas_required: true },
    });
    expect(engine).toMatchObject({ data: null });
    const warned = await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'update',
      path: 'metadata/new',
      body: { cas_required: false },
    });
    expect(warned.warnings).toEqual([
      '"cas_required" set to false, but is mandated by backend config. This value will be ignored.',
    ]);
  });

  it('lists keys and folders under metadata/', async () => {
    for (const p of ['a', 'b/c', 'b/d/e', 'b/d/f', 'c/x', 'ünï/1']) await write(p, { x: 1 });
    const list = (path: string) =>
      h.call(kvV2.metadataList, { mount, operation: 'list', path: `metadata/${path}` });
    expect((await list('')).data).toEqual({ keys: ['a', 'b/', 'c/', 'ünï/'] });
    expect((await list('b/')).data).toEqual({ keys: ['c', 'd/'] });
    expect((await list('b')).data).toEqual({ keys: ['c', 'd/'] });
    expect((await list('b/d/')).data).toEqual({ keys: ['e', 'f'] });
    expect(await h.fail(kvV2.metadataList, { mount, operation: 'list', path: 'metadata/a/' })).toMatchObject({
      code: 'not_found',
    });
    expect(
      await h.fail(kvV2.metadataList, { mount, operation: 'list', path: 'metadata/zzz/' }),
    ).toMatchObject({ code: 'not_found' });
  });

  it('removes a key with DELETE metadata; a new write starts again at version 1', async () => {
    await write('gone', { a: 1 });
    await write('gone', { a: 2 });
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/gone' });
    expect(
      await h.fail(kvV2.metadataRead, { mount, operation: 'read', path: 'metadata/gone' }),
    ).toMatchObject({ code: 'not_found' });
    expect(await readFail('gone', 1)).toMatchObject({ code: 'not_found', data: undefined });
    expect((await write('gone', { a: 3 })).data).toMatchObject({ version: 1 });
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/never' });
  });

  it('keeps max_versions versions; 0 means 10; the key setting overrides the engine', async () => {
    for (let i = 1; i <= 12; i++) await write('ten', { i });
    expect((await metadata('ten')).data).toMatchObject({ current_version: 12, oldest_version: 3 });
    expect(Object.keys((await metadata('ten')).data?.['versions'] as object)).toHaveLength(10);
    expect(await readFail('ten', 2)).toMatchObject({ code: 'not_found', data: undefined });

    await h.call(kvV2.configWrite, { mount, operation: 'update', path: 'config', body: { max_versions: 3 } });
    for (let i = 1; i <= 5; i++) await write('three', { i });
    expect(Object.keys((await metadata('three')).data?.['versions'] as object)).toEqual(['3', '4', '5']);
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'update',
      path: 'metadata/three',
      body: { max_versions: 1 },
    });
    await write('three', { i: 6 });
    expect((await metadata('three')).data).toMatchObject({
      oldest_version: 6,
      versions: { '6': expect.anything() },
    });
    expect(Object.keys((await metadata('three')).data?.['versions'] as object)).toEqual(['6']);
  });

  it('applies delete_version_after on time, capped by the engine, across restarts', async () => {
    await h.call(kvV2.configWrite, {
      mount,
      operation: 'update',
      path: 'config',
      body: { delete_version_after: '10s' },
    });
    expect((await h.call(kvV2.configRead, { mount, operation: 'read', path: 'config' })).data).toEqual({
      cas_required: false,
      delete_version_after: '10s',
      max_versions: 0,
    });
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'create',
      path: 'metadata/t',
      body: { delete_version_after: '1h' },
    });
    const written = await write('t', { a: 1 });
    const created = Date.parse((written.data as { created_time: string }).created_time);
    expect(Date.parse((written.data as { deletion_time: string }).deletion_time) - created).toBe(10_000);
    expect((await read('t')).data).toMatchObject({ data: { a: 1 } });

    // restart: the deadline is data, not a timer
    await h.stopReplica(0);
    const restarted = h.replicas.length;
    await h.addReplica();
    h.clock.now = new Date(created + 10_001);
    const after = await h.fail(
      kvV2.dataRead,
      { mount, operation: 'read', path: 'data/t' },
      { replica: restarted },
    );
    expect(after).toMatchObject({ code: 'not_found', data: { data: null, metadata: { version: 1 } } });

    await h.call(
      kvV2.configWrite,
      { mount, operation: 'update', path: 'config', body: { delete_version_after: -1 } },
      { replica: restarted },
    );
    expect(
      (await h.call(kvV2.configRead, { mount, operation: 'read', path: 'config' }, { replica: restarted }))
        .data,
    ).toMatchObject({
      delete_version_after: '-1s',
    });
  });

  it('records every change as an event of the key stream', async () => {
    await write('ev', { a: 1 });
    await h.call(kvV2.dataPatch, { mount, operation: 'patch', path: 'data/ev', body: { data: { b: 2 } } });
    await versions(kvV2.versionsDelete, 'ev', [1]);
    await versions(kvV2.versionsUndelete, 'ev', [1]);
    await versions(kvV2.versionsDestroy, 'ev', [1]);
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'update',
      path: 'metadata/ev',
      body: { max_versions: 4 },
    });
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/ev' });
    const store = new EventStore({
      db: h.database.db,
      schema: 'kv',
      cipher: h.barrier,
      registry: new EventRegistry(KV_EVENT_TYPES),
    });
    const events = await store.readStream(`kv/${mount.uuid}/ev`);
    expect(events.map((e) => e.type)).toEqual([
      'SecretVersionWritten',
      'SecretVersionWritten',
      'SecretVersionsDeleted',
      'SecretVersionsUndeleted',
      'SecretVersionsDestroyed',
      'SecretMetadataWritten',
      'SecretMetadataDeleted',
    ]);
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain('"a":1');
  });
});
