import { engineHistoryState, kvV1, kvV2, type MountInfo } from '@coffer/contracts';
import { startKvHarness, type KvHarness } from '../test-support/kv-harness';

const DAY_MS = 86_400_000;
const KEYS = ['a', 'b'];
const VERSIONS = [1, 2, 3, 4, 5];
const SHREDDED = /destroyed data stays destroyed/;

/** What a live read answered: its data, or the 404 with its body. */
type Answer = { ok: true; data: unknown } | { ok: false; data: unknown };

interface Day {
  at: string;
  config: unknown;
  metadata: Record<string, Answer>;
  /** "key@version" -> the data read */
  data: Record<string, Answer>;
  /** folder -> the metadata LIST */
  lists: Record<string, Answer>;
}

const FOLDERS = ['', 'f/'];

/**
 * kv.history.state against real Postgres + NATS: a scripted run of kv v2 changes on a fake clock
 * (engine config, writes, metadata, soft delete and undelete, pruning by max_versions, destroy,
 * a key deleted and written again), the live answers recorded after each day; then every past
 * answer rebuilt from the key's events must be what the live API said then, except the values
 * whose data key is gone today: those stay gone.
 */
describe('kv v2 history: state at a time (NATS + Postgres)', () => {
  let h: KvHarness;
  let mount: MountInfo;
  const days: Day[] = [];

  const past = (path: string, at: string | undefined, query: Record<string, string> = {}, values = true) =>
    h.client.request(engineHistoryState('kv'), {
      mount_uuid: mount.uuid,
      mount_type: mount.type,
      mount_options: mount.options,
      path,
      query,
      ...(at !== undefined ? { at } : {}),
      values,
    });
  const answer = async (read: () => Promise<{ data?: unknown }>): Promise<Answer> => {
    try {
      return { ok: true, data: (await read()).data };
    } catch (error) {
      const e = error as { code?: string; data?: unknown };
      if (e.code !== 'not_found') throw error;
      return { ok: false, data: e.data ?? null };
    }
  };
  const call = (contract: Parameters<KvHarness['call']>[0], path: string, body: Record<string, unknown>) =>
    h.call(contract, { mount, operation: 'update', path, body });

  const record = async (): Promise<void> => {
    const day: Day = { at: h.clock.now.toISOString(), config: null, metadata: {}, data: {}, lists: {} };
    for (const folder of FOLDERS) {
      day.lists[folder] = await answer(() =>
        h.call(kvV2.metadataList, {
          mount,
          operation: 'list',
          path: `metadata/${folder}`,
          params: { path: folder },
        }),
      );
    }
    day.config = (await h.call(kvV2.configRead, { mount, operation: 'read', path: 'config' })).data;
    for (const key of KEYS) {
      day.metadata[key] = await answer(() =>
        h.call(kvV2.metadataRead, { mount, operation: 'read', path: `metadata/${key}` }),
      );
      for (const v of VERSIONS) {
        day.data[`${key}@${v}`] = await answer(() =>
          h.call(kvV2.dataRead, {
            mount,
            operation: 'read',
            path: `data/${key}`,
            query: { version: String(v) },
          }),
        );
      }
    }
    days.push(day);
    h.clock.now = new Date(h.clock.now.getTime() + DAY_MS);
  };

  beforeAll(async () => {
    h = await startKvHarness('kv2_history');
    mount = h.mount('kv-v2');
    h.clock.now = new Date('2025-01-01T00:00:00.000Z');
    const write = (key: string, data: Record<string, unknown>) =>
      h.call(kvV2.dataWrite, { mount, operation: 'create', path: `data/${key}`, body: { data } });
    const versions = (contract: typeof kvV2.versionsDelete, key: string, list: number[]) =>
      h.call(contract, {
        mount,
        operation: 'update',
        path: `x/${key}`,
        params: { path: key },
        body: { versions: list },
      });

    await record(); // day 0: nothing
    await call(kvV2.configWrite, 'config', { max_versions: 5 });
    await write('a', { v: 1 });
    await write('f/c', { c: 1 });
    await write('f/d/e', { e: 1 });
    await record();
    await write('a', { v: 2 });
    await call(kvV2.metadataWrite, 'metadata/a', { max_versions: 4, custom_metadata: { owner: 'ann' } });
    await write('b', { x: 1 });
    await record();
    await write('a', { v: 3 });
    await h.call(kvV2.dataDelete, { mount, operation: 'delete', path: 'data/a' });
    await record();
    await versions(kvV2.versionsUndelete, 'a', [3]);
    await write('a', { v: 4 });
    await write('a', { v: 5 }); // max_versions 4: version 1 is pruned, its data key erased
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/b' });
    await h.call(kvV2.metadataDelete, { mount, operation: 'delete', path: 'metadata/f/c' });
    await record();
    await versions(kvV2.versionsDestroy, 'a', [2]);
    await write('b', { x: 2 });
    await call(kvV2.metadataPatch, 'metadata/a', { custom_metadata: { owner: null, team: 'ops' } });
    await record();
    await call(kvV2.configWrite, 'config', { cas_required: true, delete_version_after: '1h' });
    await record();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers the engine config and every key metadata as the live reads did each day', async () => {
    for (const day of days) {
      const config = await past('config', day.at);
      expect({ at: day.at, state: config.state }).toEqual({ at: day.at, state: day.config });
      for (const key of KEYS) {
        const then = day.metadata[key];
        const now = await past(`metadata/${key}`, day.at);
        expect({ at: day.at, key, found: now.found, state: now.state ?? null }).toEqual({
          at: day.at,
          key,
          found: then?.ok,
          state: then?.ok ? then.data : null,
        });
      }
    }
  });

  it('answers the metadata LIST of each folder as the live LIST did each day', async () => {
    const seen = new Set<string>();
    for (const day of days) {
      for (const folder of FOLDERS) {
        const then = day.lists[folder];
        const now = await past(`metadata/${folder}`, day.at, { list: 'true' });
        expect({ at: day.at, folder, found: now.found, state: now.state ?? null }).toEqual({
          at: day.at,
          folder,
          found: then?.ok,
          state: then?.ok ? then.data : null,
        });
        seen.add(JSON.stringify(then));
      }
    }
    // empty (404), sub-folders, a key deleted and written again: several different answers
    expect(seen.size).toBeGreaterThanOrEqual(4);
    await expect(past('data/', undefined, { list: 'true' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('answers past values only while their data key exists today; destroyed data stays destroyed', async () => {
    const today = days[days.length - 1];
    let shredded = 0;
    let values = 0;
    for (const day of days) {
      for (const key of KEYS) {
        for (const v of VERSIONS) {
          const then = day.data[`${key}@${v}`];
          const now = await past(`data/${key}`, day.at, { version: String(v) });
          const label = { at: day.at, key, v };
          // the same version today: written by the same event (b was deleted and written again)
          const valueOf = (x: Answer | undefined) =>
            x?.ok ? JSON.stringify((x.data as { data: unknown }).data) : undefined;
          const sameToday = valueOf(today?.data[`${key}@${v}`]) === valueOf(then);
          if (then?.ok && !sameToday) {
            // live then, its data key erased since (destroyed, pruned or its key deleted)
            expect({ ...label, found: now.found, warnings: now.warnings }).toEqual({
              ...label,
              found: false,
              warnings: [expect.stringMatching(SHREDDED)],
            });
            expect((now.state as { data: unknown } | null)?.data ?? null).toBeNull();
            shredded++;
            continue;
          }
          expect({ ...label, found: now.found, state: now.state }).toEqual({
            ...label,
            found: then?.ok,
            state: then?.data ?? null,
          });
          if (then?.ok) values++;
        }
      }
    }
    expect(shredded).toBeGreaterThanOrEqual(4);
    expect(values).toBeGreaterThanOrEqual(8);
  });

  it('needs the caller may read the path now to open a value; metadata needs no such right', async () => {
    const day = days[2];
    if (!day) throw new Error('no day 2');
    await expect(past('data/a', day.at, { version: '2' }, false)).rejects.toMatchObject({
      code: 'permission_denied',
    });
    await expect(past('metadata/a', day.at, {}, false)).resolves.toMatchObject({ found: true });
  });

  it('without an instant answers now, and refuses paths with no history', async () => {
    const now = await past('data/a', undefined);
    expect(now).toMatchObject({ found: true, state: { data: { v: 5 } } });
    expect(now.wal).toBeGreaterThan(0);
    await expect(past('subkeys/a', undefined)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(
      h.client.request(engineHistoryState('kv'), {
        mount_uuid: mount.uuid,
        mount_type: 'kv',
        mount_options: { version: '1' },
        path: 'a',
        query: {},
        values: true,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('answers the LIST of a kv v1 folder as the live LIST did', async () => {
    const v1 = h.mount('kv-v1', `kv1-history-${Date.now()}/`);
    const write = (path: string) =>
      h.call(kvV1.write, { mount: v1, operation: 'create', path, body: { x: 1 } });
    const remove = (path: string) => h.call(kvV1.delete, { mount: v1, operation: 'delete', path });
    const steps: { at: string; lists: Record<string, Answer> }[] = [];
    const step = async () => {
      const lists: Record<string, Answer> = {};
      for (const folder of FOLDERS) {
        lists[folder] = await answer(() => h.call(kvV1.list, { mount: v1, operation: 'list', path: folder }));
      }
      steps.push({ at: h.clock.now.toISOString(), lists });
      h.clock.now = new Date(h.clock.now.getTime() + DAY_MS);
    };
    await step();
    await write('a');
    await write('f/b');
    await write('f/g/c');
    await step();
    await remove('f/b');
    await write('f/b2');
    await step();
    await remove('a');
    await remove('f/b2');
    await remove('f/g/c');
    await step();
    const pastV1 = (path: string, at: string) =>
      h.client.request(engineHistoryState('kv'), {
        mount_uuid: v1.uuid,
        mount_type: 'kv',
        mount_options: v1.options,
        path,
        query: { list: 'true' },
        at,
        values: false,
      });
    expect(steps[1]?.lists['f/']).toEqual({ ok: true, data: { keys: ['b', 'g/'] } });
    for (const then of steps) {
      for (const folder of FOLDERS) {
        const now = await pastV1(folder, then.at);
        const was = then.lists[folder];
        expect({ at: then.at, folder, found: now.found, state: now.state ?? null }).toEqual({
          at: then.at,
          folder,
          found: was?.ok,
          state: was?.ok ? was.data : null,
        });
      }
    }
  });
});
