import {
  coreTokenAlive,
  cubbyhole,
  kvV1,
  kvV2,
  mountDisabled,
  tokenRevoked,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import type { INestMicroservice } from '@nestjs/common';
import { CubbyholeLifecycleService } from './cubbyhole-lifecycle.service';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

/** Tokens core-sys would still know; the stubbed coreTokenAlive answers from it. */
const liveTokens = new Set<string>();

describe('cubbyhole (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  beforeAll(async () => {
    h = await startKvHarness('cubbyhole', {
      serve: (client) => {
        client.serve(coreTokenAlive, 'core-sys', async ({ tokenRefs }) => ({
          alive: tokenRefs.filter((r) => liveTokens.has(r)),
        }));
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    mount = h.mount('cubbyhole', 'cubbyhole/');
  });

  const as = (tokenRef: string) => ({
    caller: { tokenRef, accessor: `acc-${tokenRef}`, root: false, policies: ['default'] },
  });
  const write = (tokenRef: string, path: string, body: Record<string, unknown>) =>
    h.call(cubbyhole.write, { mount, operation: 'create', path, body }, as(tokenRef));
  const read = (tokenRef: string, path: string) =>
    h.call(cubbyhole.read, { mount, operation: 'read', path }, as(tokenRef));
  const rowsOf = async (owner: string) =>
    (
      await h.database.db
        .withSchema('kv')
        .selectFrom('data_keys')
        .select('key_id')
        .where('owner', '=', owner)
        .execute()
    ).length +
    (
      await h.database.db
        .withSchema('kv')
        .selectFrom('flat_secrets')
        .select('path')
        .where('owner', '=', owner)
        .execute()
    ).length;

  it("keeps each token's storage private, root included", async () => {
    await write('t1', 'note', { secret: 'one' });
    await write('t2', 'note', { secret: 'two' });
    expect(await read('t1', 'note')).toMatchObject({ data: { secret: 'one' } });
    expect((await read('t1', 'note')).lease).toBeUndefined();
    expect((await read('t2', 'note')).data).toEqual({ secret: 'two' });
    expect(
      await h.fail(cubbyhole.read, { mount, operation: 'read', path: 'note' }, as('root-token')),
    ).toMatchObject({ code: 'not_found' });
    expect(
      await h.fail(
        cubbyhole.read,
        { mount, operation: 'read', path: 'note' },
        { caller: { tokenRef: undefined } },
      ),
    ).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('lists, deletes and answers existence checks per token', async () => {
    await write('t3', 'a/b', { x: 1 });
    await write('t3', 'c', { x: 1 });
    expect((await h.call(cubbyhole.list, { mount, operation: 'list', path: '' }, as('t3'))).data).toEqual({
      keys: ['a/', 'c'],
    });
    expect(await h.fail(cubbyhole.list, { mount, operation: 'list', path: '' }, as('t4'))).toMatchObject({
      code: 'not_found',
    });
    expect(await h.call(cubbyhole.exists, { mount, operation: 'update', path: 'c' }, as('t3'))).toEqual({
      exists: true,
    });
    expect(await h.call(cubbyhole.exists, { mount, operation: 'update', path: 'c' }, as('t4'))).toEqual({
      exists: false,
    });
    await h.call(cubbyhole.delete, { mount, operation: 'delete', path: 'c' }, as('t3'));
    expect(await h.fail(cubbyhole.read, { mount, operation: 'read', path: 'c' }, as('t3'))).toMatchObject({
      code: 'not_found',
    });
    expect(
      await h.fail(cubbyhole.write, { mount, operation: 'create', path: 'c', body: {} }, as('t3')),
    ).toMatchObject({
      message: 'missing data fields',
    });
  });

  it('destroys a cubbyhole when its token is revoked', async () => {
    await write('revoked', 'x', { v: 1 });
    await write('revoked', 'y/z', { v: 2 });
    await write('kept', 'x', { v: 3 });
    await h.client.publish(tokenRevoked, { accessors: ['acc-revoked'], tokenRefs: ['revoked'] });
    await waitFor(async () => (await rowsOf('revoked')) === 0, { message: 'cubbyhole of the revoked token' });
    expect(
      await h.fail(cubbyhole.read, { mount, operation: 'read', path: 'x' }, as('revoked')),
    ).toMatchObject({ code: 'not_found' });
    expect((await read('kept', 'x')).data).toEqual({ v: 3 });
  });

  it('destroys the cubbyholes of tokens core-sys no longer knows, on a sweep', async () => {
    liveTokens.add('alive');
    await write('alive', 'x', { v: 1 });
    await write('expired', 'x', { v: 2 });
    const lifecycle = (h.replicas[0]?.app as INestMicroservice).get(CubbyholeLifecycleService);
    expect(await lifecycle.sweep()).toBeGreaterThanOrEqual(1);
    expect(await rowsOf('expired')).toBe(0);
    expect((await read('alive', 'x')).data).toEqual({ v: 1 });
  });

  it('purges every kv and cubbyhole secret of a disabled mount', async () => {
    const kv2 = h.mount('kv-v2');
    const kv1 = h.mount('kv-v1');
    await h.call(kvV2.dataWrite, {
      mount: kv2,
      operation: 'create',
      path: 'data/a',
      body: { data: { a: 1 } },
    });
    await h.call(kvV2.configWrite, {
      mount: kv2,
      operation: 'update',
      path: 'config',
      body: { max_versions: 3 },
    });
    await h.call(kvV1.write, { mount: kv1, operation: 'create', path: 'a', body: { a: 1 } });
    const count = async (uuid: string) =>
      (
        await h.database.db
          .withSchema('kv')
          .selectFrom('data_keys')
          .select('key_id')
          .where('mount_uuid', '=', uuid)
          .execute()
      ).length;
    expect(await count(kv2.uuid)).toBe(1);
    await h.client.publish(mountDisabled, { uuid: kv2.uuid, type: 'kv', path: kv2.path });
    await h.client.publish(mountDisabled, { uuid: kv1.uuid, type: 'kv', path: kv1.path });
    await waitFor(async () => (await count(kv2.uuid)) === 0 && (await count(kv1.uuid)) === 0, {
      message: 'mount purge',
    });
    expect(await h.fail(kvV2.dataRead, { mount: kv2, operation: 'read', path: 'data/a' })).toMatchObject({
      code: 'not_found',
    });
    expect(
      (await h.call(kvV2.configRead, { mount: kv2, operation: 'read', path: 'config' })).data,
    ).toMatchObject({ max_versions: 0 });
    expect(await h.fail(kvV1.read, { mount: kv1, operation: 'read', path: 'a' })).toMatchObject({
      code: 'not_found',
    });
  });
});
