import { EventRegistry, EventStore } from '@coffer/event-store';
import { kvV1, type MountInfo } from '@coffer/contracts';
import { KV_EVENT_TYPES } from '../kv.events';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

describe('kv v1 (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  beforeAll(async () => {
    h = await startKvHarness('kv1');
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    mount = h.mount('kv-v1');
  });

  const write = (path: string, body: Record<string, unknown>) =>
    h.call(kvV1.write, { mount, operation: 'create', path, body });
  const read = (path: string) => h.call(kvV1.read, { mount, operation: 'read', path });
  const list = (path: string) => h.call(kvV1.list, { mount, operation: 'list', path });

  it('writes, replaces and reads a secret with lease advice', async () => {
    expect(await write('app/config', { user: 'a', nested: { x: [1, 2] } })).toMatchObject({ data: null });
    expect(await read('app/config')).toMatchObject({
      data: { user: 'a', nested: { x: [1, 2] } },
      lease: { lease_id: '', lease_duration: 2764800, renewable: false },
    });
    await write('app/config', { only: 'this' });
    expect((await read('app/config')).data).toEqual({ only: 'this' });
  });

  it('turns a ttl key into lease_duration advice without a lease', async () => {
    await write('ttl', { ttl: '1h', v: 'x' });
    expect((await read('ttl')).lease).toEqual({ lease_id: '', lease_duration: 3600, renewable: false });
    const custom = { ...mount, config: { default_lease_ttl: 60, max_lease_ttl: 0 } };
    await h.call(kvV1.write, { mount: custom, operation: 'create', path: 'plain', body: { v: 1 } });
    expect(
      (await h.call(kvV1.read, { mount: custom, operation: 'read', path: 'plain' })).lease?.lease_duration,
    ).toBe(60);
  });

  it('deletes, answering 404 afterwards; deleting a missing secret is fine', async () => {
    await write('del', { a: 1 });
    await h.call(kvV1.delete, { mount, operation: 'delete', path: 'del' });
    expect(await h.fail(kvV1.read, { mount, operation: 'read', path: 'del' })).toMatchObject({
      code: 'not_found',
    });
    await h.call(kvV1.delete, { mount, operation: 'delete', path: 'del' });
  });

  it('lists one folder level, folders ending in "/"', async () => {
    for (const p of ['a', 'b/c', 'b/d/e', 'b0', 'b.x', 'z/🔑']) await write(p, { v: 1 });
    expect((await list('')).data).toEqual({ keys: ['a', 'b.x', 'b/', 'b0', 'z/'] });
    expect((await list('b/')).data).toEqual({ keys: ['c', 'd/'] });
    expect((await list('z')).data).toEqual({ keys: ['🔑'] });
    expect(await h.fail(kvV1.list, { mount, operation: 'list', path: 'a/' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('answers existence checks', async () => {
    expect(await h.call(kvV1.exists, { mount, operation: 'update', path: 'e' })).toEqual({ exists: false });
    await write('e', { a: 1 });
    expect(await h.call(kvV1.exists, { mount, operation: 'update', path: 'e' })).toEqual({ exists: true });
  });

  it('rejects bad inputs', async () => {
    expect(await h.fail(kvV1.write, { mount, operation: 'create', path: 'x', body: {} })).toMatchObject({
      code: 'invalid_request',
      message: 'missing data fields',
    });
    expect(await h.fail(kvV1.write, { mount, operation: 'create', path: '', body: { a: 1 } })).toMatchObject({
      message: 'missing path',
    });
    expect(
      await h.fail(kvV1.write, { mount, operation: 'create', path: 'a/../b', body: { a: 1 } }),
    ).toMatchObject({ code: 'invalid_request' });
    expect(
      await h.fail(kvV1.write, { mount, operation: 'create', path: 'a.', body: { a: 1 } }),
    ).toMatchObject({ code: 'unsupported_path' });
    expect(await h.fail(kvV1.read, { mount, operation: 'read', path: '' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('round-trips 1,000 keys and unicode exactly', async () => {
    const big: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) big[`k${i}-ü-🔑`] = `v${i}-値-\n\t"\\`;
    await write('big/ключ', big);
    const got = (await read('big/ключ')).data as Record<string, string>;
    expect(got).toEqual(big);
    expect(Object.keys(got)).toEqual(Object.keys(big));
  });

  it('erases the data key of a replaced value: the log keeps no readable old value', async () => {
    await write('rot', { v: 'old-value' });
    await write('rot', { v: 'new-value' });
    const store = new EventStore({
      db: h.database.db,
      schema: 'kv',
      cipher: h.barrier,
      registry: new EventRegistry(KV_EVENT_TYPES),
    });
    const events = await store.readStream(`kv/${mount.uuid}/rot`);
    const keyIds = events.map((e) => (e.data as { keyId: string }).keyId);
    const rows = await h.database.db
      .withSchema('kv')
      .selectFrom('data_keys')
      .select('key_id')
      .where('key_id', 'in', keyIds)
      .execute();
    expect(rows.map((r) => r.key_id)).toEqual([keyIds[1]]);
  });
});
