import { cubbyhole, kvV1, kvV2, type MountInfo } from '@coffer/contracts';
import { startKvHarness, type KvHarness } from './test-support/kv-harness';

describe('two kv replicas on one database (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  beforeAll(async () => {
    // each replica on its own subject prefix, so a test can address one replica or the other
    h = await startKvHarness('kv_replicas', { replicas: 2, isolated: true });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    mount = h.mount('kv-v2');
  });

  const via = (replica: number) => ({ replica });

  it('reads through one replica what was written through the other, at once', async () => {
    for (let i = 0; i < 20; i++) {
      const writer = i % 2;
      await h.call(
        kvV2.dataWrite,
        { mount, operation: 'update', path: 'data/rw', body: { data: { i } } },
        via(writer),
      );
      const got = await h.call(kvV2.dataRead, { mount, operation: 'read', path: 'data/rw' }, via(1 - writer));
      expect(got.data).toMatchObject({ data: { i }, metadata: { version: i + 1 } });
    }
    const v1 = h.mount('kv-v1');
    await h.call(kvV1.write, { mount: v1, operation: 'create', path: 'a', body: { v: 1 } }, via(0));
    expect((await h.call(kvV1.read, { mount: v1, operation: 'read', path: 'a' }, via(1))).data).toEqual({
      v: 1,
    });
    const cub = h.mount('cubbyhole');
    const caller = { caller: { tokenRef: 'tok' } };
    await h.call(
      cubbyhole.write,
      { mount: cub, operation: 'create', path: 'c', body: { v: 2 } },
      { ...caller, replica: 1 },
    );
    expect(
      (await h.call(cubbyhole.read, { mount: cub, operation: 'read', path: 'c' }, { ...caller, replica: 0 }))
        .data,
    ).toEqual({ v: 2 });
  });

  it('sees settings, deletes and destroys made through the other replica', async () => {
    await h.call(
      kvV2.dataWrite,
      { mount, operation: 'create', path: 'data/s', body: { data: { a: 1 } } },
      via(0),
    );
    await h.call(
      kvV2.configWrite,
      { mount, operation: 'update', path: 'config', body: { cas_required: true } },
      via(0),
    );
    expect(
      await h.fail(
        kvV2.dataWrite,
        { mount, operation: 'update', path: 'data/s', body: { data: { a: 2 } } },
        via(1),
      ),
    ).toMatchObject({
      message: 'check-and-set parameter required for this call',
    });
    await h.call(
      kvV2.versionsDestroy,
      { mount, operation: 'update', path: 'destroy/s', body: { versions: [1] } },
      via(1),
    );
    expect(await h.fail(kvV2.dataRead, { mount, operation: 'read', path: 'data/s' }, via(0))).toMatchObject({
      data: { metadata: { destroyed: true } },
    });
  });

  it('serialises concurrent writes to one key across replicas: no lost or duplicate version', async () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      h.call(
        kvV2.dataWrite,
        { mount, operation: 'update', path: 'data/hot', body: { data: { i } } },
        via(i % 2),
      ),
    );
    const versions = (await Promise.all(writes)).map((r) => (r.data as { version: number }).version);
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const meta = await h.call(kvV2.metadataRead, { mount, operation: 'read', path: 'metadata/hot' }, via(1));
    expect(meta.data).toMatchObject({ current_version: 40, oldest_version: 31 });
  });

  it('keeps each pipelined write of a hot key at its own version, with its own data', async () => {
    await h.call(
      kvV2.dataWrite,
      { mount, operation: 'create', path: 'data/piped', body: { data: { i: -1 } } },
      via(0),
    );
    const writes = Array.from({ length: 64 }, (_, i) =>
      h.call(
        kvV2.dataWrite,
        { mount, operation: 'update', path: 'data/piped', body: { data: { i } } },
        via(i % 2),
      ),
    );
    const versions = (await Promise.all(writes)).map((r) => (r.data as { version: number }).version);
    expect(new Set(versions).size).toBe(64);
    // the ten versions kept: each holds the data of the write that answered with its number
    for (const version of versions.filter((v) => v > 55)) {
      const got = await h.call(
        kvV2.dataRead,
        { mount, operation: 'read', path: 'data/piped', query: { version: String(version) } },
        via(version % 2),
      );
      expect(got.data).toMatchObject({ data: { i: versions.indexOf(version) }, metadata: { version } });
    }
    const meta = await h.call(
      kvV2.metadataRead,
      { mount, operation: 'read', path: 'metadata/piped' },
      via(0),
    );
    expect(meta.data).toMatchObject({ current_version: 65, oldest_version: 56 });
  });

  it('creates a hot key and rewrites it in shared batches: the window kept, pruned versions and keys gone', async () => {
    const writes = Array.from({ length: 48 }, (_, i) =>
      h.call(
        kvV2.dataWrite,
        { mount, operation: 'update', path: 'data/burst', body: { data: { i } } },
        via(0),
      ),
    );
    const versions = (await Promise.all(writes)).map((r) => (r.data as { version: number }).version);
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    const meta = await h.call(
      kvV2.metadataRead,
      { mount, operation: 'read', path: 'metadata/burst' },
      via(1),
    );
    expect(meta.data).toMatchObject({ current_version: 48, oldest_version: 39 });
    expect(Object.keys((meta.data as { versions: object }).versions)).toHaveLength(10);
    for (const version of [39, 48]) {
      const got = await h.call(
        kvV2.dataRead,
        { mount, operation: 'read', path: 'data/burst', query: { version: String(version) } },
        via(1),
      );
      expect(got.data).toMatchObject({ data: { i: versions.indexOf(version) } });
    }
    const rows = await h.database.db
      .withSchema('kv')
      .selectFrom('kv2_versions')
      .innerJoin('data_keys', 'data_keys.key_id', 'kv2_versions.key_id')
      .select(['kv2_versions.version'])
      .where('kv2_versions.mount_uuid', '=', mount.uuid)
      .where('kv2_versions.path', '=', 'burst')
      .execute();
    // exactly the ten versions kept, each with its data key; no data key of a pruned version left
    expect(rows.map((r: { version: number }) => r.version).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 39),
    );
    const keys = await h.database.db
      .withSchema('kv')
      .selectFrom('data_keys')
      .select(['key_id'])
      .where('mount_uuid', '=', mount.uuid)
      .execute();
    expect(keys).toHaveLength(10);
  });

  it('projects a burst of creations and updates of many keys (one statement per batch), each readable', async () => {
    const paths = Array.from({ length: 30 }, (_, i) => `burst/k${i}`);
    await Promise.all(
      paths
        .slice(0, 10)
        .map((p) =>
          h.call(
            kvV2.dataWrite,
            { mount, operation: 'create', path: `data/${p}`, body: { data: { v: 0 } } },
            via(0),
          ),
        ),
    );
    // both replicas at once: new keys, existing keys, and the same new key created from both
    await Promise.all([
      ...paths.map((p, i) =>
        h.call(
          kvV2.dataWrite,
          { mount, operation: 'update', path: `data/${p}`, body: { data: { v: i } } },
          via(i % 2),
        ),
      ),
      ...[0, 1, 0, 1].map((r) =>
        h.call(
          kvV2.dataWrite,
          { mount, operation: 'update', path: 'data/burst/same', body: { data: { r } } },
          via(r),
        ),
      ),
    ]);
    for (const [i, p] of paths.entries()) {
      const got = await h.call(
        kvV2.dataRead,
        { mount, operation: 'read', path: `data/${p}` },
        via(1 - (i % 2)),
      );
      expect(got.data).toMatchObject({ data: { v: i }, metadata: { version: i < 10 ? 2 : 1 } });
    }
    const same = await h.call(
      kvV2.metadataRead,
      { mount, operation: 'read', path: 'metadata/burst/same' },
      via(0),
    );
    expect(same.data).toMatchObject({ current_version: 4 });
  });

  it('lets exactly one of two concurrent check-and-set creations win', async () => {
    const attempts = [0, 1, 0, 1].map((r) =>
      h
        .call(
          kvV2.dataWrite,
          { mount, operation: 'create', path: 'data/once', body: { data: { r }, options: { cas: 0 } } },
          via(r),
        )
        .then(
          () => 'ok',
          (e: { message: string }) => e.message,
        ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual(
      Array(3).fill('check-and-set parameter did not match the current version'),
    );
  });

  it('creates the same new key from both replicas at once without an error', async () => {
    const results = await Promise.all(
      [0, 1, 0, 1, 0, 1].map((r) =>
        h.call(
          kvV1.write,
          { mount: h.mount('kv-v1'), operation: 'create', path: 'new', body: { r } },
          via(r),
        ),
      ),
    );
    expect(results).toHaveLength(6);
    const shared = h.mount('kv-v1');
    await Promise.all(
      [0, 1, 0, 1].map((r) =>
        h.call(kvV1.write, { mount: shared, operation: 'create', path: 'same', body: { r } }, via(r)),
      ),
    );
    expect(
      (await h.call(kvV1.read, { mount: shared, operation: 'read', path: 'same' }, via(0))).data,
    ).toHaveProperty('r');
  });
});
