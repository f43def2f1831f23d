import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { cubbyhole, engineHistoryState, kvV1, kvV2, mountDisabled, type MountInfo } from '@coffer/contracts';
import {
  replicaApplyContract,
  replicaExportContract,
  replicaFoldContract,
  replicaLogSchemaOf,
  replicaOpenContract,
  type ReplicaFoldEvent,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import {
  EventRegistry,
  EventStore,
  migrateSchema,
  openedReplicaEvent,
  openReplicaPayload,
  openReplicaRows,
} from '@coffer/event-store';
import { waitFor } from '@coffer/testing';
import { KV_SCHEMA } from '../kv.di';
import { kvMigrations } from '../migrations';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

jest.setTimeout(60_000);

/**
 * A primary kv service and two secondaries (DR, performance), each with its own database and
 * barrier keyring: the primary's log is shipped as the replication service ships it (rows as
 * stored, payloads and attachments opened with the primary's keyring), each secondary replays it
 * into its replica log (`kv_replica`) and read model with kv's own projections, its own log
 * keeping what it writes itself; the promotion fold copies what was replayed into the own log.
 */
describe('kv replica: the primary log replayed on DR and performance secondaries (NATS + Postgres)', () => {
  let primary: KvHarness;
  let dr: KvHarness;
  let perf: KvHarness;
  let v2: MountInfo;
  let v1: MountInfo;
  let cubby: MountInfo;
  let log: EventStore;
  const apply = replicaApplyContract(KV_SCHEMA);
  const fold = replicaFoldContract(KV_SCHEMA);

  beforeAll(async () => {
    primary = await startKvHarness('kv_repl_primary');
    dr = await startKvHarness('kv_repl_dr');
    perf = await startKvHarness('kv_repl_perf');
    log = logOf(primary);
    v2 = primary.mount('kv-v2');
    v1 = primary.mount('kv-v1');
    // every cluster has its own cubbyhole mount (a built-in, local)
    cubby = primary.mount('cubbyhole', 'cubbyhole/');
    for (const h of [dr, perf]) serveReplicaOpen(h);
  });
  afterAll(async () => {
    for (const h of [primary, dr, perf]) await h?.close();
  });

  const logOf = (h: KvHarness, schema = KV_SCHEMA) =>
    new EventStore({ db: h.database.db, schema, cipher: h.barrier, registry: new EventRegistry([]) });
  const modeOf = (h: KvHarness): ReplicationMode => (h === dr ? 'dr' : 'performance');

  /** The secondary's replication service: opens its replica log's rows with the primary's keyring. */
  const serveReplicaOpen = (h: KvHarness) =>
    h.client.serve(replicaOpenContract, 'replication', (req) =>
      openReplicaRows(h.database.db, req, primary.barrier),
    );

  /** An instant between two changes: every cluster's clock moves past it before the next write. */
  const instants: string[] = [];
  const historyInstant = (): string => {
    const clusters = [primary, dr, perf];
    const latest = Math.max(...clusters.map((h) => h.clock.now.getTime()));
    for (const h of clusters) h.clock.now = new Date(latest + 2_000);
    return new Date(latest + 1_000).toISOString();
  };
  /** kv.history.state of a path of `mount` on `h` at `at`, as core-sys asks it (values allowed). */
  const historyOf = (h: KvHarness, mount: MountInfo, path: string, at: string, query = {}) =>
    h.client.request(engineHistoryState('kv'), {
      mount_uuid: mount.uuid,
      mount_type: mount.type,
      mount_options: mount.options,
      path,
      query,
      at,
      values: true,
    });
  /** What the history of the primary's kv is asked on the secondaries: v2 paths, v1 and v2 LISTs. */
  const HISTORY_PATHS: ReadonlyArray<[() => MountInfo, string, Record<string, string>]> = [
    [() => v2, 'data/hist', {}],
    [() => v2, 'data/hist', { version: '1' }],
    [() => v2, 'metadata/hist', {}],
    [() => v2, 'config', {}],
    [() => v2, 'metadata/', { list: 'true' }],
    [() => v1, '', { list: 'true' }],
  ];
  /** Each of `secondaries` answers the history of HISTORY_PATHS at every instant as the primary does. */
  const historyAsPrimary = async (secondaries: readonly KvHarness[], at: readonly string[] = instants) => {
    for (const instant of at) {
      for (const [mount, path, query] of HISTORY_PATHS) {
        const expected = await historyOf(primary, mount(), path, instant, query);
        for (const h of secondaries)
          expect(await historyOf(h, mount(), path, instant, query)).toEqual(expected);
      }
    }
  };

  /**
   * One round of the replication service: from the secondary's head in `from`'s kv log (the
   * primary's, or a promoted cluster's) to at most `limit` rows further.
   */
  async function shipFrom(
    from: KvHarness,
    to: KvHarness,
    mode: ReplicationMode,
    limit = 1000,
  ): Promise<{ lastWal: number; hash: string }> {
    const head = await to.client.request(apply, { op: 'head' });
    const rows = await logOf(from).readRawFrom(head.lastWal, limit);
    if (rows.length === 0) return head;
    const exported = await from.client.request(replicaExportContract(KV_SCHEMA), {
      events: rows.map((r) => ({
        wal: r.wal,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(from.barrier, KV_SCHEMA, r),
      })),
    });
    const attachments = Object.fromEntries(
      exported.attachments.map((a) => [
        a.name,
        from.barrier
          .decrypt(Buffer.from(a.sealed, 'base64'), Buffer.from(a.aad, 'base64'))
          .toString('base64'),
      ]),
    );
    const events = rows.map((r) => openedReplicaEvent(from.barrier, KV_SCHEMA, r));
    return to.client.request(apply, { op: 'apply', mode, events, attachments });
  }
  const ship = (to: KvHarness, mode = modeOf(to)) => shipFrom(primary, to, mode);

  /** What the promotion sends: the replica log after the fold position, opened with the primary's keyring. */
  async function foldOn(h: KvHarness): Promise<number> {
    const { foldedThrough } = await h.client.request(fold, { op: 'position' });
    const rows = await logOf(h, replicaLogSchemaOf(KV_SCHEMA)).readRawFrom(foldedThrough, 10_000);
    const events: ReplicaFoldEvent[] = rows
      .filter((r) => r.payload.length > 0)
      .map((r) => ({
        wal: r.wal,
        stream: r.stream,
        streamVersion: r.streamVersion,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, KV_SCHEMA, r),
      }));
    const through = rows.at(-1)?.wal ?? foldedThrough;
    return (await h.client.request(fold, { op: 'fold', mode: modeOf(h), events, through })).appended;
  }

  /** The streams of a cluster's own kv log (what it wrote itself, or folded). */
  const ownStreams = async (h: KvHarness) => {
    const { rows } = await sql<{ stream: string }>`
      select distinct stream from kv.event_log order by stream`.execute(h.database.db);
    return rows.map((r) => r.stream);
  };

  const readV2 = (h: KvHarness, path: string) =>
    h.call(kvV2.dataRead, { mount: v2, operation: 'read', path: `data/${path}` });
  const writeV2 = (path: string, operation: 'create' | 'update', data: Record<string, unknown>) =>
    primary.call(kvV2.dataWrite, { mount: v2, operation, path: `data/${path}`, body: { data } });
  const dataKeysOf = async (h: KvHarness, mountUuid: string) =>
    (
      await h.database.db
        .withSchema('kv')
        .selectFrom('data_keys')
        .select('key_id')
        .where('mount_uuid', '=', mountUuid)
        .execute()
    ).length;
  const asToken = (tokenRef: string) => ({ caller: { tokenRef, root: false, policies: ['default'] } });

  it('serves the primary kv v1 and v2 data, metadata and config from its own read model, in both modes', async () => {
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

    for (const secondary of [dr, perf]) {
      const head = await ship(secondary);
      expect(head).toEqual(await log.head());
      // the primary's rows are in the replica log, the secondary's own log holds nothing of them
      expect(await logOf(secondary, replicaLogSchemaOf(KV_SCHEMA)).head()).toEqual(head);
      expect(await ownStreams(secondary)).toEqual([]);

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
    }
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
    for (const secondary of [dr, perf]) {
      await ship(secondary);
      expect(
        await secondary.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/b' }),
      ).toMatchObject({ data: { metadata: { version: 2, destroyed: true } } });
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
    }
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

    for (const secondary of [dr, perf]) {
      const before = await secondary.client.request(apply, { op: 'head' });
      const head = await ship(secondary); // one apply: the whole run above is one batch
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
    }
  });

  it('applies a redelivered batch once and keeps the chain', async () => {
    const before = await log.head();
    const rows = await log.readRawFrom(before.lastWal - 2, 10);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, KV_SCHEMA, r));
    for (const secondary of [dr, perf]) {
      const again = await secondary.client.request(apply, {
        op: 'apply',
        mode: modeOf(secondary),
        events,
        attachments: {},
      });
      expect(again).toEqual(before);
      expect((await readV2(secondary, 'a')).data).toMatchObject({ metadata: { version: 2 } });
    }
  });

  it('keeps a row filtered out by the primary as a placeholder: position and hash, no data', async () => {
    const hidden = primary.mount('kv-v2');
    await primary.call(kvV2.dataWrite, {
      mount: hidden,
      operation: 'create',
      path: 'data/h',
      body: { data: { secret: 'x' } },
    });
    const head = await perf.client.request(apply, { op: 'head' });
    const rows = await log.readRawFrom(head.lastWal, 10);
    const applied = await perf.client.request(apply, {
      op: 'apply',
      mode: 'performance',
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
    expect(await perf.fail(kvV2.dataRead, read)).toMatchObject({ code: 'not_found' });
    await ship(dr);
  });

  it("a performance secondary writes its local mounts and cubbyholes to its own log, next to the primary's rows", async () => {
    // the primary's cubbyhole: its token's, local to it (a DR secondary takes it with the tokens)
    await primary.call(
      cubbyhole.write,
      { mount: cubby, operation: 'create', path: 'note', body: { from: 'primary' } },
      asToken('primary-token'),
    );
    const local = perf.mount('kv-v2');
    const localV1 = perf.mount('kv-v1');
    const ownCubby = { ...perf.mount('cubbyhole', 'cubbyhole/'), uuid: cubby.uuid };
    const writeLocal = (path: string, data: Record<string, unknown>) =>
      perf.call(kvV2.dataWrite, { mount: local, operation: 'update', path: `data/${path}`, body: { data } });
    await writeLocal('mine', { n: 1 });
    await perf.call(kvV1.write, { mount: localV1, operation: 'create', path: 'flat', body: { v: 'local' } });
    await perf.call(
      cubbyhole.write,
      { mount: ownCubby, operation: 'create', path: 'note', body: { from: 'perf' } },
      asToken('perf-token'),
    );
    // the primary goes on writing meanwhile: its rows still apply after the local ones
    await writeV2('a', 'update', { n: 3 });
    for (const secondary of [dr, perf]) expect(await ship(secondary)).toEqual(await log.head());
    await writeLocal('mine', { n: 2 });

    expect((await readV2(perf, 'a')).data).toMatchObject({ data: { n: 3 }, metadata: { version: 3 } });
    const mine = await perf.call(kvV2.dataRead, { mount: local, operation: 'read', path: 'data/mine' });
    expect(mine.data).toMatchObject({ data: { n: 2 }, metadata: { version: 2 } });
    const flat = await perf.call(kvV1.read, { mount: localV1, operation: 'read', path: 'flat' });
    expect(flat.data).toEqual({ v: 'local' });
    const note = (h: KvHarness, token: string) =>
      h.call(cubbyhole.read, { mount: cubby, operation: 'read', path: 'note' }, asToken(token));
    expect((await note(perf, 'perf-token')).data).toEqual({ from: 'perf' });
    // the primary's cubbyhole is not projected on the performance secondary; the DR secondary has it
    expect(
      await perf.fail(
        cubbyhole.read,
        { mount: cubby, operation: 'read', path: 'note' },
        asToken('primary-token'),
      ),
    ).toMatchObject({ code: 'not_found' });
    expect((await note(dr, 'primary-token')).data).toEqual({ from: 'primary' });
    // the own log holds the local writes only; the replica log is the primary's, hash for hash
    const own = await ownStreams(perf);
    expect(own).toEqual(
      [`kv/${local.uuid}/mine`, `kv/${localV1.uuid}/flat`, `cubbyhole/perf-token/${cubby.uuid}/note`].sort(),
    );
    expect(await logOf(perf, replicaLogSchemaOf(KV_SCHEMA)).head()).toEqual(await log.head());
    // a local mount disabled there is purged there, in its own log; a replicated one by the
    // primary's purge, streamed (the replicated broadcast of its replayed mount table does nothing)
    const gone = primary.mount('kv-v2');
    await primary.call(kvV2.dataWrite, {
      mount: gone,
      operation: 'create',
      path: 'data/g',
      body: { data: { g: 1 } },
    });
    await ship(perf);
    expect(await dataKeysOf(perf, gone.uuid)).toBe(1);
    await perf.client.publish(mountDisabled, {
      uuid: gone.uuid,
      type: 'kv',
      path: gone.path,
      replicated: true,
    });
    await perf.client.publish(mountDisabled, { uuid: localV1.uuid, type: 'kv', path: localV1.path });
    await waitFor(async () => (await dataKeysOf(perf, localV1.uuid)) === 0, { message: 'local mount purge' });
    expect(await dataKeysOf(perf, gone.uuid)).toBe(1);
    expect(await ownStreams(perf)).toContain(`kv-mount/${localV1.uuid}`);
    await primary.client.publish(mountDisabled, { uuid: gone.uuid, type: 'kv', path: gone.path });
    await waitFor(async () => (await dataKeysOf(primary, gone.uuid)) === 0, { message: 'primary purge' });
    for (const secondary of [dr, perf]) expect(await ship(secondary)).toEqual(await log.head());
    expect(await dataKeysOf(perf, gone.uuid)).toBe(0);
    expect(await perf.fail(kvV2.dataRead, { mount: gone, operation: 'read', path: 'data/g' })).toMatchObject({
      code: 'not_found',
    });
  });

  it("answers the history of the primary's kv v1 and v2 paths at an instant on both secondaries as the primary does", async () => {
    instants.push(historyInstant());
    await writeV2('hist', 'create', { h: 1 });
    await primary.call(kvV1.write, { mount: v1, operation: 'create', path: 'hist', body: { v: 1 } });
    instants.push(historyInstant());
    await writeV2('hist', 'update', { h: 2 });
    await primary.call(kvV2.metadataWrite, {
      mount: v2,
      operation: 'update',
      path: 'metadata/hist',
      body: { custom_metadata: { era: 'two' } },
    });
    await primary.call(kvV2.configWrite, {
      mount: v2,
      operation: 'update',
      path: 'config',
      body: { max_versions: 9 },
    });
    instants.push(historyInstant());
    await primary.call(kvV2.dataDelete, { mount: v2, operation: 'delete', path: 'data/hist' });
    await primary.call(kvV1.delete, { mount: v1, operation: 'delete', path: 'hist' });
    instants.push(historyInstant());
    for (const secondary of [dr, perf]) expect(await ship(secondary)).toEqual(await log.head());

    await historyAsPrimary([dr, perf]);
    // what the comparison covers: the values then, opened with the replayed data keys
    const [before, first, second, deleted] = instants;
    expect(await historyOf(perf, v2, 'data/hist', before ?? '')).toMatchObject({ found: false });
    expect(await historyOf(perf, v2, 'data/hist', first ?? '')).toMatchObject({
      found: true,
      state: { data: { h: 1 } },
    });
    expect(await historyOf(dr, v2, 'data/hist', second ?? '')).toMatchObject({
      found: true,
      state: { data: { h: 2 }, metadata: { custom_metadata: { era: 'two' } } },
    });
    expect(await historyOf(perf, v2, 'data/hist', deleted ?? '')).toMatchObject({ found: false });
    expect(await historyOf(perf, v1, '', first ?? '', { list: 'true' })).toMatchObject({
      state: { keys: expect.arrayContaining(['hist']) },
    });
    // the secondary's own writes stay in its history, beside the primary's
    const local = perf.mount('kv-v2');
    await perf.call(kvV2.dataWrite, {
      mount: local,
      operation: 'create',
      path: 'data/own',
      body: { data: { o: 1 } },
    });
    const now = historyInstant();
    expect(await historyOf(perf, local, 'data/own', now)).toMatchObject({
      found: true,
      state: { data: { o: 1 } },
    });
  });

  it('folds the replica log into the own log once at promotion: data, history and new writes work after', async () => {
    const foldedDr = await foldOn(dr);
    expect(foldedDr).toBeGreaterThan(30);
    expect(await foldOn(dr)).toBe(0);
    const foldedPerf = await foldOn(perf);
    // performance: the primary's cubbyhole is neither projected nor folded, nor is the row
    // filtered out for it (a placeholder)
    expect(foldedPerf).toBe(foldedDr - 2);
    expect(await foldOn(perf)).toBe(0);
    const ownDr = await ownStreams(dr);
    expect(ownDr).toContain(`cubbyhole/primary-token/${cubby.uuid}/note`);
    expect(await ownStreams(perf)).not.toContain(`cubbyhole/primary-token/${cubby.uuid}/note`);
    expect(await ownStreams(perf)).toContain(`kv/${v2.uuid}/a`);
    // history after the fold: the primary's events at their own times, not the fold's
    await historyAsPrimary([dr, perf]);

    for (const promoted of [dr, perf]) {
      // the data keys stay where the replay put them: every version reads as before
      expect((await readV2(promoted, 'a')).data).toMatchObject({ data: { n: 3 }, metadata: { version: 3 } });
      const b1 = { mount: v2, operation: 'read' as const, path: 'data/b', query: { version: '1' } };
      expect((await promoted.call(kvV2.dataRead, b1)).data).toMatchObject({ data: { s: 1 } });
      // history folds the own log, which now holds the primary's events
      const past = await promoted.client.request(engineHistoryState('kv'), {
        mount_uuid: v2.uuid,
        mount_type: v2.type,
        mount_options: v2.options,
        path: 'data/a',
        query: { version: '2' },
        values: true,
      });
      expect(past).toMatchObject({ found: true, state: { data: { n: 2 } } });
      // new writes append at the folded versions, as the primary would have
      const next = await promoted.call(kvV2.dataWrite, {
        mount: v2,
        operation: 'update',
        path: 'data/a',
        body: { data: { n: 4 }, options: { cas: 3 } },
      });
      expect(next.data).toMatchObject({ version: 4 });
      await promoted.call(kvV1.write, { mount: v1, operation: 'create', path: 'flat', body: { v: 'again' } });
      // crypto-shredding after the fold: a destroyed version is gone
      await promoted.call(kvV2.versionsDestroy, {
        mount: v2,
        operation: 'update',
        path: 'destroy/a',
        body: { versions: [1] },
      });
      const a1 = { mount: v2, operation: 'read' as const, path: 'data/a', query: { version: '1' } };
      expect(await promoted.fail(kvV2.dataRead, a1)).toMatchObject({
        data: { metadata: { destroyed: true } },
      });
    }
    // a DR secondary of the promoted cluster replays its own log, the fold's appends included,
    // in batches that cut them (a version write and its prune apart)
    const follower = await startKvHarness('kv_repl_follower');
    try {
      const target = await logOf(dr).head();
      for (let head = { lastWal: 0 }; head.lastWal < target.lastWal;)
        head = await shipFrom(dr, follower, 'dr', 3);
      for (const path of ['hot', 'again', 'a']) {
        const meta = (h: KvHarness) =>
          h.call(kvV2.metadataRead, { mount: v2, operation: 'read', path: `metadata/${path}` });
        expect((await meta(follower)).data).toEqual((await meta(dr)).data);
      }
      expect((await readV2(follower, 'a')).data).toMatchObject({ data: { n: 4 }, metadata: { version: 4 } });
      expect((await readV2(follower, 'again')).data).toMatchObject({ data: { life: 2.5 } });
    } finally {
      await follower.close();
    }
    // a promoted DR secondary's own cubbyholes: the primary's token's, now its own
    const note = await dr.call(
      cubbyhole.read,
      { mount: cubby, operation: 'read', path: 'note' },
      asToken('primary-token'),
    );
    expect(note.data).toEqual({ from: 'primary' });
    await dr.call(
      cubbyhole.delete,
      { mount: cubby, operation: 'delete', path: 'note' },
      asToken('primary-token'),
    );
  });

  it("drops a former primary's own kv data at its first DR batch; a performance secondary keeps its local writes", async () => {
    // a cluster that was a primary (its own log holds what it wrote then), now a DR secondary
    // pointed at a new primary (update-primary, no wipe): the new primary's stream replaces it
    const former = await startKvHarness('kv_repl_former');
    const fresh = await startKvHarness('kv_repl_fresh');
    try {
      for (const h of [former, fresh])
        await h.call(kvV2.dataWrite, {
          mount: v2,
          operation: 'create',
          path: 'data/own',
          body: { data: { x: 1 } },
        });
      expect(await ship(former, 'dr')).toEqual(await log.head());
      expect(await ownStreams(former)).toEqual([]);
      expect(
        await former.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/own' }),
      ).toMatchObject({
        code: 'not_found',
      });
      expect((await readV2(former, 'a')).data).toMatchObject({ data: { n: 3 } });
      // a performance secondary's own writes are its local storage: kept
      expect(await ship(fresh, 'performance')).toEqual(await log.head());
      expect((await readV2(fresh, 'own')).data).toMatchObject({ data: { x: 1 } });
      expect((await readV2(fresh, 'a')).data).toMatchObject({ data: { n: 3 } });
    } finally {
      await former.close();
      await fresh.close();
    }
  });

  it("a re-sync of a performance secondary keeps its local kv data and cubbyholes, shredded keys stay gone, the primary's rows come again", async () => {
    const resync = await startKvHarness('kv_repl_resync');
    try {
      serveReplicaOpen(resync);
      expect(await ship(resync, 'performance')).toEqual(await log.head());
      const local = resync.mount('kv-v2');
      const localV1 = resync.mount('kv-v1');
      const ownCubby = { ...resync.mount('cubbyhole', 'cubbyhole/'), uuid: cubby.uuid };
      const readLocal = (version: string) => ({
        mount: local,
        operation: 'read' as const,
        path: 'data/keep',
        query: { version },
      });
      for (const k of [1, 2, 3])
        await resync.call(kvV2.dataWrite, {
          mount: local,
          operation: 'update',
          path: 'data/keep',
          body: { data: { k } },
        });
      const shredded = await resync.database.db
        .withSchema('kv')
        .selectFrom('kv2_versions')
        .select('key_id')
        .where('mount_uuid', '=', local.uuid)
        .where('version', '=', 1)
        .executeTakeFirstOrThrow();
      await resync.call(kvV2.versionsDestroy, {
        mount: local,
        operation: 'update',
        path: 'destroy/keep',
        body: { versions: [1] },
      });
      await resync.call(kvV1.write, {
        mount: localV1,
        operation: 'create',
        path: 'flat',
        body: { v: 'mine' },
      });
      await resync.call(
        cubbyhole.write,
        { mount: ownCubby, operation: 'create', path: 'note', body: { from: 'resync' } },
        asToken('resync-token'),
      );
      const keysOf = async (keyId: string | null) =>
        (
          await resync.database.db
            .withSchema('kv')
            .selectFrom('data_keys')
            .select('key_id')
            .where('key_id', '=', keyId ?? '')
            .execute()
        ).length;
      expect(await keysOf(shredded.key_id)).toBe(0);
      expect(await dataKeysOf(resync, local.uuid)).toBe(2);
      expect(await dataKeysOf(resync, v2.uuid)).toBeGreaterThan(0);

      const head = await resync.client.request(apply, {
        op: 'wipe',
        mode: 'performance',
        scope: 'replicated',
      });
      expect(head.lastWal).toBe(0);
      // the primary's rows are gone, its data keys with them
      expect(
        await resync.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/a' }),
      ).toMatchObject({
        code: 'not_found',
      });
      expect(await dataKeysOf(resync, v2.uuid)).toBe(0);
      // the local data is served again, readable: its data keys were kept
      expect((await resync.call(kvV2.dataRead, readLocal('0'))).data).toMatchObject({
        data: { k: 3 },
        metadata: { version: 3 },
      });
      expect((await resync.call(kvV2.dataRead, readLocal('2'))).data).toMatchObject({ data: { k: 2 } });
      const flat = await resync.call(kvV1.read, { mount: localV1, operation: 'read', path: 'flat' });
      expect(flat.data).toEqual({ v: 'mine' });
      const note = await resync.call(
        cubbyhole.read,
        { mount: cubby, operation: 'read', path: 'note' },
        asToken('resync-token'),
      );
      expect(note.data).toEqual({ from: 'resync' });
      // a destroyed version stays destroyed: its key is not brought back by the rebuild
      expect(await resync.fail(kvV2.dataRead, readLocal('1'))).toMatchObject({
        data: { metadata: { version: 1, destroyed: true } },
      });
      expect(await keysOf(shredded.key_id)).toBe(0);
      expect(await dataKeysOf(resync, local.uuid)).toBe(2);

      // the next connection brings the primary's rows again, projected without a conflict
      expect(await ship(resync, 'performance')).toEqual(await log.head());
      expect((await readV2(resync, 'a')).data).toEqual((await readV2(primary, 'a')).data);
      await historyAsPrimary([resync]);
      expect((await resync.call(kvV2.dataRead, readLocal('0'))).data).toMatchObject({ data: { k: 3 } });
      const next = await resync.call(kvV2.dataWrite, {
        mount: local,
        operation: 'update',
        path: 'data/keep',
        body: { data: { k: 4 }, options: { cas: 3 } },
      });
      expect(next.data).toMatchObject({ version: 4 });
    } finally {
      await resync.close();
    }
  });

  it('wipes its own data and the replica log when enabled as a secondary anew', async () => {
    const head = await perf.client.request(apply, { op: 'wipe', mode: 'performance' });
    expect(head.lastWal).toBe(0);
    expect(await perf.fail(kvV2.dataRead, { mount: v2, operation: 'read', path: 'data/a' })).toMatchObject({
      code: 'not_found',
    });
    expect(await ownStreams(perf)).toEqual([]);
    expect((await perf.client.request(fold, { op: 'position' })).foldedThrough).toBe(0);
    await ship(perf);
    expect((await readV2(perf, 'a')).data).toMatchObject({ data: { n: 3 } });
    // the migration histories survive the wipe: the next start of the service migrates nothing
    const again = await migrateSchema(perf.database.db, KV_SCHEMA, kvMigrations);
    expect(again.filter((r) => r.status !== 'NotExecuted')).toEqual([]);
  });

  it('opens the history of a key whose versions exceed one transport message in several requests', async () => {
    // last: the test's own shipping and fold send the log in one request, which these rows exceed
    const big = (n: number) => ({ n, blob: randomBytes(150 * 1024).toString('base64') });
    for (let n = 1; n <= 5; n++) await writeV2('big', n === 1 ? 'create' : 'update', big(n));
    const target = await log.head();
    let head = await perf.client.request(apply, { op: 'head' });
    while (head.lastWal < target.lastWal) head = await shipFrom(primary, perf, 'performance', 1);
    const at = historyInstant();
    const first = await historyOf(primary, v2, 'data/big', at, { version: '1' });
    expect(first).toMatchObject({ found: true, state: { data: { n: 1 } } });
    expect(await historyOf(perf, v2, 'data/big', at, { version: '1' })).toEqual(first);
  });
});
