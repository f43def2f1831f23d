import { kvV2, type MountInfo } from '@coffer/contracts';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

describe('kv v2 data (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  beforeAll(async () => {
    h = await startKvHarness('kv2_data');
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    mount = h.mount('kv-v2');
  });

  const write = (path: string, data: Record<string, unknown>, options?: Record<string, unknown>) =>
    h.call(kvV2.dataWrite, {
      mount,
      operation: 'create',
      path: `data/${path}`,
      body: { data, ...(options ? { options } : {}) },
    });
  const read = (path: string, version?: number) =>
    h.call(kvV2.dataRead, {
      mount,
      operation: 'read',
      path: `data/${path}`,
      query: version ? { version: String(version) } : {},
    });

  it('writes versions and reads the latest or a given one', async () => {
    const first = await write('app/db', { user: 'u', password: 'p1' });
    expect(first.data).toEqual({
      created_time: expect.any(String),
      custom_metadata: null,
      deletion_time: '',
      destroyed: false,
      version: 1,
    });
    await write('app/db', { user: 'u', password: 'p2' });
    expect((await read('app/db')).data).toMatchObject({
      data: { user: 'u', password: 'p2' },
      metadata: { version: 2 },
    });
    expect((await read('app/db', 1)).data).toMatchObject({
      data: { password: 'p1' },
      metadata: { version: 1 },
    });
    expect(
      await h.fail(kvV2.dataRead, { mount, operation: 'read', path: 'data/app/db', query: { version: '9' } }),
    ).toMatchObject({
      code: 'not_found',
      data: undefined,
    });
  });

  it('answers 404 without a body for a missing key', async () => {
    expect(await h.fail(kvV2.dataRead, { mount, operation: 'read', path: 'data/nope' })).toMatchObject({
      code: 'not_found',
    });
  });

  it('enforces check-and-set', async () => {
    await write('cas', { v: 1 }, { cas: 0 });
    expect(
      await h.fail(kvV2.dataWrite, {
        mount,
        operation: 'update',
        path: 'data/cas',
        body: { data: { v: 2 }, options: { cas: 0 } },
      }),
    ).toEqual(
      expect.objectContaining({
        code: 'invalid_request',
        message: 'check-and-set parameter did not match the current version',
      }),
    );
    expect((await write('cas', { v: 2 }, { cas: 1 })).data).toMatchObject({ version: 2 });
    await h.call(kvV2.configWrite, {
      mount,
      operation: 'update',
      path: 'config',
      body: { cas_required: true },
    });
    expect(
      await h.fail(kvV2.dataWrite, {
        mount,
        operation: 'update',
        path: 'data/cas',
        body: { data: { v: 3 } },
      }),
    ).toMatchObject({
      message: 'check-and-set parameter required for this call',
    });
    expect((await write('cas', { v: 3 }, { cas: '2' })).data).toMatchObject({ version: 3 });
  });

  it('requires cas when the key says so', async () => {
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'create',
      path: 'metadata/k',
      body: { cas_required: true },
    });
    expect(
      await h.fail(kvV2.dataWrite, { mount, operation: 'update', path: 'data/k', body: { data: { a: 1 } } }),
    ).toMatchObject({
      message: 'check-and-set parameter required for this call',
    });
    // metadata exists with no version: its current version is 0
    expect((await write('k', { a: 1 }, { cas: 0 })).data).toMatchObject({ version: 1 });
  });

  it('patches with a JSON merge patch into a new version', async () => {
    await write('p', { a: 1, b: { c: 2, d: 3 }, e: 'x' });
    const patched = await h.call(kvV2.dataPatch, {
      mount,
      operation: 'patch',
      path: 'data/p',
      body: { data: { b: { c: null, z: 9 }, e: null, f: [1] }, options: { cas: 1 } },
    });
    expect(patched.data).toMatchObject({ version: 2, destroyed: false });
    expect((await read('p')).data).toMatchObject({ data: { a: 1, b: { d: 3, z: 9 }, f: [1] } });
    expect(
      await h.fail(kvV2.dataPatch, {
        mount,
        operation: 'patch',
        path: 'data/p',
        body: { data: { a: 2 }, options: { cas: 1 } },
      }),
    ).toMatchObject({
      message: 'check-and-set parameter did not match the current version',
    });
  });

  it('refuses to patch a missing, deleted or destroyed key with 404', async () => {
    expect(
      await h.fail(kvV2.dataPatch, {
        mount,
        operation: 'patch',
        path: 'data/none',
        body: { data: { a: 1 } },
      }),
    ).toMatchObject({
      code: 'not_found',
      data: undefined,
    });
    await write('gone', { a: 1 });
    await h.call(kvV2.dataDelete, { mount, operation: 'delete', path: 'data/gone' });
    const deleted = await h.fail(kvV2.dataPatch, {
      mount,
      operation: 'patch',
      path: 'data/gone',
      body: { data: { a: 2 } },
    });
    expect(deleted).toMatchObject({ code: 'not_found', data: { version: 1, destroyed: false } });
    expect((deleted.data as { deletion_time: string }).deletion_time).not.toBe('');
    await h.call(kvV2.versionsDestroy, {
      mount,
      operation: 'update',
      path: 'destroy/gone',
      body: { versions: [1] },
    });
    expect(
      await h.fail(kvV2.dataPatch, {
        mount,
        operation: 'patch',
        path: 'data/gone',
        body: { data: { a: 2 } },
      }),
    ).toMatchObject({
      data: { destroyed: true },
    });
  });

  it('reads subkeys with depth and version', async () => {
    await write('s', { a: 'x', b: { c: 'y', d: { e: 'z' } }, empty: {} });
    await write('s', { only: 'v2' });
    const all = await h.call(kvV2.subkeysRead, {
      mount,
      operation: 'read',
      path: 'subkeys/s',
      query: { version: '1' },
    });
    expect(all.data).toMatchObject({
      subkeys: { a: null, b: { c: null, d: { e: null } }, empty: null },
      metadata: { version: 1 },
    });
    const shallow = await h.call(kvV2.subkeysRead, {
      mount,
      operation: 'read',
      path: 'subkeys/s',
      query: { version: '1', depth: '1' },
    });
    expect(shallow.data).toMatchObject({ subkeys: { a: null, b: null, empty: null } });
    expect(
      (await h.call(kvV2.subkeysRead, { mount, operation: 'read', path: 'subkeys/s' })).data,
    ).toMatchObject({ subkeys: { only: null } });
    await h.call(kvV2.versionsDelete, {
      mount,
      operation: 'update',
      path: 'delete/s',
      body: { versions: [2] },
    });
    expect(await h.fail(kvV2.subkeysRead, { mount, operation: 'read', path: 'subkeys/s' })).toMatchObject({
      code: 'not_found',
      data: { subkeys: null, metadata: { version: 2 } },
    });
  });

  it('round-trips 1,000 keys and unicode exactly', async () => {
    const big: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) big[`key-${i}-ключ-🔑`] = `value-${i}-値-\u{1F600}-"quoted"-\\`;
    await write('unicode/秘密/🔐', big);
    const got = await read('unicode/秘密/🔐');
    expect((got.data as { data: unknown }).data).toEqual(big);
    expect(Object.keys((got.data as { data: object }).data)).toEqual(Object.keys(big));
  });

  it('rejects bad inputs with Vault texts', async () => {
    const req = (body: Record<string, unknown>) => ({
      mount,
      operation: 'create' as const,
      path: 'data/bad',
      body,
    });
    expect(await h.fail(kvV2.dataWrite, req({}))).toMatchObject({
      code: 'invalid_request',
      message: 'no data provided',
    });
    expect((await h.fail(kvV2.dataWrite, req({ data: 'text' }))).message).toContain('expected a map');
    expect((await h.fail(kvV2.dataWrite, req({ data: 'x' }))).message).toBe(
      `Field validation failed: error converting input for field "data": '' expected a map, got 'string'`,
    );
    expect((await h.fail(kvV2.dataWrite, req({ data: [1, 2] }))).message).toContain('expected a map');
    expect(await h.fail(kvV2.dataWrite, req({ data: {}, options: { cas: 'x' } }))).toMatchObject({
      message: 'error parsing check-and-set parameter',
    });
    expect(
      (await h.fail(kvV2.dataRead, { mount, operation: 'read', path: 'data/bad', query: { version: 'one' } }))
        .message,
    ).toContain('error converting input one for field "version"');
    expect(await h.fail(kvV2.dataWrite, { ...req({ data: { a: 1 } }), path: 'data/a/../b' })).toMatchObject({
      code: 'invalid_request',
    });
    expect(await h.fail(kvV2.dataWrite, { ...req({ data: { a: 1 } }), path: 'data/x.' })).toMatchObject({
      code: 'unsupported_path',
    });
  });

  it('answers paths outside the API with 404 and Vault warnings', async () => {
    expect(
      await h.fail(kvV2.invalidPath, { mount, operation: 'read', path: 'foo', params: { path: 'foo' } }),
    ).toMatchObject({
      code: 'not_found',
      warnings: [
        "Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. If using the Vault CLI, use 'vault kv get' for this operation.",
      ],
    });
    expect(
      (await h.fail(kvV2.invalidPath, { mount, operation: 'update', path: 'foo', params: { path: 'foo' } }))
        .warnings?.[0],
    ).toContain("'vault kv put'");
    expect(
      await h.fail(kvV2.invalidPath, { mount, operation: 'read', path: 'data', params: { path: 'data' } }),
    ).toMatchObject({
      warnings: ['Non-listing operations on the root of a K/V v2 mount are not supported.'],
    });
    expect(
      (await h.fail(kvV2.dataRead, { mount, operation: 'read', path: 'data/dir/' })).warnings?.[0],
    ).toContain('Invalid path');
  });

  it('tells the gateway whether a write creates or updates', async () => {
    const exists = () => h.call(kvV2.dataExists, { mount, operation: 'update', path: 'data/e' });
    expect(await exists()).toEqual({ exists: false });
    await write('e', { a: 1 });
    expect(await exists()).toEqual({ exists: true });
    expect(await h.call(kvV2.metadataExists, { mount, operation: 'update', path: 'metadata/e' })).toEqual({
      exists: true,
    });
    expect(await h.call(kvV2.metadataExists, { mount, operation: 'update', path: 'metadata/f' })).toEqual({
      exists: false,
    });
  });

  it('keeps mounts apart', async () => {
    const other = h.mount('kv-v2');
    await write('shared-name', { mine: true });
    expect(
      await h.fail(kvV2.dataRead, { mount: other, operation: 'read', path: 'data/shared-name' }),
    ).toMatchObject({ code: 'not_found' });
  });
});
