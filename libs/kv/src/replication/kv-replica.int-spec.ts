import { kvV1, kvV2, type MountInfo } from '@coffer/contracts';
import { replicaApplyContract, replicaExportContract } from '@coffer/contracts/replication';
import {
  EventRegistry,
  EventStore,
  migrateSchema,
  openedReplicaEvent,
  openReplicaPayload,
} from '@coffer/event-store';
import { KV_SCHEMA } from '../kv.di';
import { kvMigrations } from '../migrations';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

/**
 * Two kv services, each with its own database and barrier keyring: the primary's log is shipped
 * as the replication service ships it (rows as stored, payloads and attachments opened with the
 * primary's keyring), and the secondary's kv service replays it with its own projections.
 */
describe('kv replica: the primary log replayed on a secondary (NATS + Postgres)', () => {
  let primary: KvHarness;
  let secondary: KvHarness;
  let v2: MountInfo;
  let v1: MountInfo;
  let log: EventStore;

  beforeAll(async () => {
    primary = await startKvHarness('kv_repl_primary');
    secondary = await startKvHarness('kv_repl_secondary');
    log = new EventStore({
      db: primary.database.db,
      schema: KV_SCHEMA,
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    v2 = primary.mount('kv-v2');
    v1 = primary.mount('kv-v1');
  });
  afterAll(async () => {
    await primary?.close();
    await secondary?.close();
  });

  /** One round of the replication service: from the secondary's head to the primary's. */
  async function ship(): Promise<{ lastWal: number; hash: string }> {
    const head = await secondary.client.request(replicaApplyContract(KV_SCHEMA), { op: 'head' });
    const rows = await log.readRawFrom(head.lastWal, 1000);
    if (rows.length === 0) return head;
    const exported = await primary.client.request(replicaExportContract(KV_SCHEMA), {
      events: rows.map((r) => ({
        wal: r.wal,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, KV_SCHEMA, r),
      })),
    });
    const attachments = Object.fromEntries(
      exported.attachments.map((a) => [
        a.name,
        primary.barrier
          .decrypt(Buffer.from(a.sealed, 'base64'), Buffer.from(a.aad, 'base64'))
          .toString('base64'),
      ]),
    );
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, KV_SCHEMA, r));

    return secondary.client.request(replicaApplyContract(KV_SCHEMA), { op: 'apply', events, attachments });
  }

  const readV2 = (h: KvHarness, path: string) =>
    h.call(kvV2.dataRead, { mount: v2, operation: 'read', path: `data/${path}` });
  const writeV2 = (path: string, operation: 'create' | 'update', data: Record<string, unknown>) =>
    primary.call(kvV2.dataWrite, { mount: v2, operation, path: `data/${path}`, body: { data } });

  it('serves the primary kv v1 and v2 data, metadata and config from its own read model', async () => {
    await writeV2('a', 'create', { n: 1 });
    await writeV2('a', 'update', { n: 2 });
    await primary.call(kvV2.metadataWrite, {
      mount: v2,
      operation: 'update',
      path: 'metadata/a',
      body: { custom_metadata: { team: 'blue' }, max_versions: 5 },
    });
    await primary.call(kvV2.configWrite, {
      mount: v2,
      operation: 'update',
      path: 'config',
      body: { max_versions: 7 },
    });
    await primary.call(kvV1.write, { mount: v1, operation: 'create', path: 'flat', body: { v: 'one' } });

    const head = await ship();
    expect(head).toEqual(await log.head());

    expect((await readV2(secondary, 'a')).data).toEqual((await readV2(primary, 'a')).data);
    expect((await readV2(secondary, 'a')).data).toMatchObject({ data: { n: 2 }, metadata: { version: 2 } });
    const meta = (h: KvHarness) =>
      h.call(kvV2.metadataRead, { mount: v2, operation: 'read', path: 'metadata/a' });
    expect((await meta(secondary)).data).toEqual((await meta(primary)).data);
    const config = (h: KvHarness) =>
      h.call(kvV2.configRead, { mount: v2, operation: 'read', path: 'config' });
    expect((await config(secondary)).data).toEqual((await config(primary)).data);
    const flat = await secondary.call(kvV1.read, { mount: v1, operation: 'read', path: 'flat' });
    expect(flat.data).toEqual({ v: 'one' });
  });

  it('replays deletes and destroys; a key shredded before shipping stays unreadable', async () => {
    await writeV2('b', 'create', { s: 1 });
    await writeV2('b', 'update', { s: 2 });
    await primary.call(kvV2.versionsDestroy, {
      mount: v2,
      operation: 'update',
      path: 'destroy/b',
      body: { versions: [2] },
    });
    await primary.call(kvV1.delete, { mount: v1, operation: 'delete', path: 'flat' });
    await ship();
    expect(
      await secondary.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/b' }),
    ).toMatchObject({
      data: { metadata: { version: 2, destroyed: true } },
    });
    const v1Read = await secondary.call(kvV2.dataRead, {
      mount: v2,
      operation: 'read',
      path: 'data/b',
      query: { version: '1' },
    });
    expect(v1Read.data).toMatchObject({ data: { s: 1 } });
    expect(await secondary.fail(kvV1.read, { mount: v1, operation: 'read', path: 'flat' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('replays one batch of many writes of a key, its prunes and a delete and re-create, as written', async () => {
    await primary.call(kvV2.metadataWrite, {
      mount: v2,
      operation: 'update',
      path: 'metadata/hot',
      body: { max_versions: 3 },
    });
    for (let n = 1; n <= 7; n++) await writeV2('hot', n === 1 ? 'create' : 'update', { n });
    await writeV2('again', 'create', { life: 1 });
    await writeV2('again', 'update', { life: 1.5 });
    await primary.call(kvV2.metadataDelete, { mount: v2, operation: 'delete', path: 'metadata/again' });
    await writeV2('again', 'create', { life: 2 });
    await writeV2('again', 'update', { life: 2.5 });
    await writeV2('fresh', 'create', { f: 1 });
    // appends the multi-row statement does not take, after writes of their key in the same batch
    await primary.call(kvV2.metadataWrite, {
      mount: v2,
      operation: 'update',
      path: 'metadata/fresh',
      body: { custom_metadata: { owner: 'ops' } },
    });
    await primary.call(kvV2.dataDelete, { mount: v2, operation: 'delete', path: 'data/hot' });

    const before = await secondary.client.request(replicaApplyContract(KV_SCHEMA), { op: 'head' });
    const head = await ship(); // one apply: the whole run above is one batch
    expect(head).toEqual(await log.head());
    expect(head.lastWal - before.lastWal).toBeGreaterThan(15);

    const meta = (h: KvHarness, path: string) =>
      h.call(kvV2.metadataRead, { mount: v2, operation: 'read', path: `metadata/${path}` });
    for (const path of ['hot', 'again', 'fresh']) {
      expect((await meta(secondary, path)).data).toEqual((await meta(primary, path)).data);
      const read = { mount: v2, operation: 'read' as const, path: `data/${path}` };
      const live = (h: KvHarness) => h.call(kvV2.dataRead, read).catch(() => h.fail(kvV2.dataRead, read));
      expect(await live(secondary)).toEqual(await live(primary));
    }
    expect(Object.keys((await meta(secondary, 'hot')).data?.versions ?? {})).toEqual(['5', '6', '7']);
    expect((await meta(secondary, 'fresh')).data).toMatchObject({ custom_metadata: { owner: 'ops' } });
    expect((await readV2(secondary, 'again')).data).toMatchObject({
      data: { life: 2.5 },
      metadata: { version: 2 },
    });
    const pruned = { mount: v2, operation: 'read' as const, path: 'data/hot', query: { version: '4' } };
    expect(await secondary.fail(kvV2.dataRead, pruned)).toEqual(await primary.fail(kvV2.dataRead, pruned));
  });

  it('applies a redelivered batch once and keeps the chain', async () => {
    const before = await log.head();
    const rows = await log.readRawFrom(before.lastWal - 2, 10);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, KV_SCHEMA, r));

    const again = await secondary.client.request(replicaApplyContract(KV_SCHEMA), {
      op: 'apply',
      events,
      attachments: {},
    });
    expect(again).toEqual(before);
    expect((await readV2(secondary, 'a')).data).toMatchObject({ metadata: { version: 2 } });
  });

  it('keeps a row filtered out by the primary as a placeholder: position and hash, no data', async () => {
    const hidden = primary.mount('kv-v2');
    await primary.call(kvV2.dataWrite, {
      mount: hidden,
      operation: 'create',
      path: 'data/h',
      body: { data: { secret: 'x' } },
    });
    const head = await secondary.client.request(replicaApplyContract(KV_SCHEMA), { op: 'head' });
    const rows = await log.readRawFrom(head.lastWal, 10);
    const applied = await secondary.client.request(replicaApplyContract(KV_SCHEMA), {
      op: 'apply',
      attachments: {},
      // as the stream sends a filtered row: no payload, no data
      events: rows.map((r) => ({
        wal: r.wal,
        stream: r.stream,
        streamVersion: r.streamVersion,
        type: r.type,
        schemaVersion: r.schemaVersion,
        payload: '',
        recordedAt: r.recordedAt.toISOString(),
        hash: r.hash,
        filtered: true,
      })),
    });
    expect(applied).toEqual(await log.head());
    const read = { mount: hidden, operation: 'read' as const, path: 'data/h' };
    expect(await secondary.fail(kvV2.dataRead, read)).toMatchObject({ code: 'not_found' });
  });

  it('wipes its data when enabled as a secondary anew', async () => {
    const head = await secondary.client.request(replicaApplyContract(KV_SCHEMA), { op: 'wipe' });
    expect(head.lastWal).toBe(0);
    expect(
      await secondary.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/a' }),
    ).toMatchObject({
      code: 'not_found',
    });
    await ship();
    expect((await readV2(secondary, 'a')).data).toMatchObject({ data: { n: 2 } });
    // the migration histories survive the wipe: the next start of the service migrates nothing
    const again = await migrateSchema(secondary.database.db, KV_SCHEMA, kvMigrations);
    expect(again.filter((r) => r.status !== 'NotExecuted')).toEqual([]);
  });
});
