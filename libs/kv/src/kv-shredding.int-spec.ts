import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { cubbyhole, kvV1, kvV2, tokenRevoked, type MountInfo } from '@coffer/contracts';
import { EventRegistry, EventStore, type StoredEvent } from '@coffer/event-store';
import { waitFor } from '@coffer/testing';
import { DataKeyCipher, flatLocation, kv2Location } from './shared/data-keys';
import { KV_EVENT_TYPES } from './kv.events';
import { rowsContainBytes, searchDatabase } from './test-support/db-search';
import { startKvHarness, type KvHarness } from './test-support/kv-harness';

/**
 * Destroy really destroys: after destroy, DELETE metadata, kv v1 delete and cubbyhole
 * destruction, the secret's plaintext is nowhere in the database in any form (rows, table files,
 * WAL), its data keys are gone from every live row, and the events that remain in the
 * append-only log can no longer be decrypted with anything the database still holds, even with
 * the barrier key in hand. A positive control shows the same method does recover the value
 * before the shred.
 */
// Each check searches every column of every table of the database: ~1-5 s on an idle 2-core machine,
// more when the int run shares it.
jest.setTimeout(60_000);

describe('crypto-shredding (Postgres, whole-database search)', () => {
  let h: KvHarness;
  let store: EventStore;
  let dataKeys: DataKeyCipher;
  beforeAll(async () => {
    h = await startKvHarness('kv_shred');
    store = new EventStore({
      db: h.database.db,
      schema: 'kv',
      cipher: h.barrier,
      registry: new EventRegistry(KV_EVENT_TYPES),
    });
    dataKeys = new DataKeyCipher(h.barrier);
  });
  afterAll(async () => {
    await h?.close();
  });

  const secretValue = () => `plaintext-${randomUUID()}-ünïcødé`;

  async function allWrappedKeys(): Promise<Map<string, Buffer>> {
    const rows = await h.database.db
      .withSchema('kv')
      .selectFrom('data_keys')
      .select(['key_id', 'wrapped'])
      .execute();
    return new Map(rows.map((r: { key_id: string; wrapped: Buffer }) => [r.key_id, r.wrapped]));
  }

  /** Tries every data key the database still holds on every written event of the stream. */
  async function recoverFromLog(stream: string, locationOf: (e: StoredEvent) => string): Promise<string[]> {
    const keys = await allWrappedKeys();
    const recovered: string[] = [];
    for (const event of await store.readStream(stream)) {
      if (event.type !== 'SecretVersionWritten' && event.type !== 'SecretWritten') continue;
      const { ciphertext } = event.data as { ciphertext: string };
      for (const [keyId, wrappedKey] of keys) {
        try {
          const plain = dataKeys.open(
            { keyId, wrappedKey, ciphertext: Buffer.from(ciphertext, 'base64') },
            locationOf(event),
          );
          recovered.push(plain.toString('utf8'));
        } catch {
          // not this key
        }
      }
    }
    return recovered;
  }

  async function expectGone(
    values: string[],
    stream: string,
    locationOf: (e: StoredEvent) => string,
    wrapped: Buffer[],
  ) {
    expect(await searchDatabase(h.database.db, values)).toEqual([]);
    for (const w of wrapped) expect(await rowsContainBytes(h.database.db, w)).toBe(false);
    expect(await recoverFromLog(stream, locationOf)).toEqual([]);
    // the log is append-only: the events are still there
    expect((await store.readStream(stream)).length).toBeGreaterThan(0);
  }

  const wrappedOf = async (keyIds: string[]) => {
    const keys = await allWrappedKeys();
    return keyIds.map((id) => keys.get(id)).filter((w): w is Buffer => w !== undefined);
  };
  const keyIdsOf = async (stream: string) =>
    (await store.readStream(stream)).flatMap((e) =>
      'keyId' in (e.data as object) ? [(e.data as { keyId: string }).keyId] : [],
    );

  it('kv v2 destroy: every destroyed version is unrecoverable; live versions stay readable', async () => {
    const mount: MountInfo = h.mount('kv-v2');
    const [v1, v2, v3] = [secretValue(), secretValue(), secretValue()];
    for (const v of [v1, v2, v3]) {
      await h.call(kvV2.dataWrite, {
        mount,
        operation: 'update',
        path: 'data/app/db',
        body: { data: { password: v } },
      });
    }
    const stream = `kv/${mount.uuid}/app/db`;
    const location = (e: StoredEvent) =>
      kv2Location(mount.uuid, 'app/db', (e.data as { version: number }).version);
    // positive control: with the barrier and the stored data keys, the log yields every value
    expect((await recoverFromLog(stream, location)).sort()).toEqual(
      [v1, v2, v3].map((v) => JSON.stringify({ password: v })).sort(),
    );
    // and the plaintext was never stored in clear, in any form
    expect(await searchDatabase(h.database.db, [v1, v2, v3])).toEqual([]);
    // control of the search itself: a value stored in clear is found in rows and on disk
    const clear = secretValue();
    await sql`create table public.search_control (v text)`.execute(h.database.db);
    await sql`insert into public.search_control values (${clear})`.execute(h.database.db);
    const found = await searchDatabase(h.database.db, [clear]);
    expect(found.some((f) => f.where.startsWith('row'))).toBe(true);
    expect(found.some((f) => f.where.includes('/base/'))).toBe(true);
    expect(found.some((f) => f.where.includes('/pg_wal/'))).toBe(true);
    await sql`drop table public.search_control`.execute(h.database.db);

    const ids = await keyIdsOf(stream);
    const wrapped = await wrappedOf(ids.slice(0, 2));
    expect(wrapped).toHaveLength(2);
    for (const w of wrapped) expect(await rowsContainBytes(h.database.db, w)).toBe(true);
    await h.call(kvV2.versionsDestroy, {
      mount,
      operation: 'update',
      path: 'destroy/app/db',
      body: { versions: [1, 2] },
    });
    expect(await searchDatabase(h.database.db, [v1, v2])).toEqual([]);
    for (const w of wrapped) expect(await rowsContainBytes(h.database.db, w)).toBe(false);
    expect(await recoverFromLog(stream, location)).toEqual([JSON.stringify({ password: v3 })]);
    expect(
      (await h.call(kvV2.dataRead, { mount, operation: 'read', path: 'data/app/db' })).data,
    ).toMatchObject({ data: { password: v3 } });
  });

  it('kv v2 DELETE metadata: every version of the key is unrecoverable', async () => {
    const mount = h.mount('kv-v2');
    const values = [secretValue(), secretValue()];
    for (const v of values)
      await h.call(kvV2.dataWrite, { mount, operation: 'update', path: 'data/k', body: { data: { v } } });
    await h.call(kvV2.dataPatch, {
      mount,
      operation: 'patch',
      path: 'data/k',
      body: { data: { extra: values[0] } },
    });
    const stream = `kv/${mount.uuid}/k`;
    const wrapped = await wrappedOf(await keyIdsOf(stream));
    expect(wrapped).toHaveLength(3);
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/k' });
    await expectGone(
      values,
      stream,
      (e) => kv2Location(mount.uuid, 'k', (e.data as { version: number }).version),
      wrapped,
    );
  });

  it('kv v2 max_versions: pruned versions are unrecoverable', async () => {
    const mount = h.mount('kv-v2');
    await h.call(kvV2.metadataWrite, {
      mount,
      operation: 'create',
      path: 'metadata/p',
      body: { max_versions: 1 },
    });
    const old = secretValue();
    await h.call(kvV2.dataWrite, { mount, operation: 'update', path: 'data/p', body: { data: { old } } });
    await h.call(kvV2.dataWrite, {
      mount,
      operation: 'update',
      path: 'data/p',
      body: { data: { fresh: 'x' } },
    });
    const recovered = await recoverFromLog(`kv/${mount.uuid}/p`, (e) =>
      kv2Location(mount.uuid, 'p', (e.data as { version: number }).version),
    );
    expect(recovered).toEqual([JSON.stringify({ fresh: 'x' })]);
  });

  it('kv v1 delete and overwrite, and cubbyhole destruction, leave nothing recoverable', async () => {
    const mount = h.mount('kv-v1');
    const [a, b] = [secretValue(), secretValue()];
    await h.call(kvV1.write, { mount, operation: 'create', path: 'x', body: { a } });
    await h.call(kvV1.write, { mount, operation: 'update', path: 'x', body: { b } });
    const stream = `kv/${mount.uuid}/x`;
    const location = () => flatLocation(mount.uuid, '', 'x');
    expect(await recoverFromLog(stream, location)).toEqual([JSON.stringify({ b })]);
    const wrapped = await wrappedOf(await keyIdsOf(stream));
    await h.call(kvV1.delete, { mount, operation: 'delete', path: 'x' });
    await expectGone([a, b], stream, location, wrapped);

    const cub = h.mount('cubbyhole');
    const c = secretValue();
    const caller = { caller: { tokenRef: 'shred-me' } };
    await h.call(cubbyhole.write, { mount: cub, operation: 'create', path: 'note', body: { c } }, caller);
    const cubStream = `cubbyhole/shred-me/${cub.uuid}/note`;
    const cubWrapped = await wrappedOf(await keyIdsOf(cubStream));
    await h.client.publish(tokenRevoked, { accessors: [], tokenRefs: ['shred-me'] });
    await waitFor(
      async () =>
        (
          await h.database.db
            .withSchema('kv')
            .selectFrom('flat_secrets')
            .select('path')
            .where('owner', '=', 'shred-me')
            .execute()
        ).length === 0,
    );
    await waitFor(
      async () =>
        (await recoverFromLog(cubStream, () => flatLocation(cub.uuid, 'shred-me', 'note'))).length === 0,
    );
    await expectGone([c], cubStream, () => flatLocation(cub.uuid, 'shred-me', 'note'), cubWrapped);
  });
});
