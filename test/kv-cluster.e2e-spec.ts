import { waitFor } from '@coffer/testing';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import {
  searchDatabaseText,
  searchFilesForBytes,
  startCluster,
  START_TIMEOUT_MS,
  uniq,
  type ApiClient,
  type Cluster,
} from './support';

jest.setTimeout(120_000);

const needle = (label: string) => `kv-needle-${label}-${randomBytes(12).toString('hex')}`;

/** The value at any byte offset inside a base64 blob: the inner groups of its three alignments. */
function shiftedBase64(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [1, 2].map((shift) => {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    return b64.slice(4, -4);
  });
}

/**
 * The cluster: two kv replicas (separate processes) behind the gateway over NATS, on Postgres.
 * Consistency across replicas, and destroy / DELETE metadata / token revocation / mount disable
 * leaving nothing of a secret in the database — rows, table files and WAL.
 */
describe('cluster: kv with two replicas', () => {
  let cluster: Cluster;
  let root: ApiClient;
  let pg: Client;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'kvcluster', kvReplicas: 2 });
    root = cluster.client;
    pg = new Client({ connectionString: cluster.databaseUrl });
    await pg.connect();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await pg?.end();
    await cluster?.stop();
  });

  const mountUuid = async (mount: string): Promise<string> =>
    (await root.get(`sys/mounts/${mount}`)).body.data.uuid;
  const count = async (query: string, params: unknown[]): Promise<number> =>
    (await pg.query<{ n: number }>(`select count(*)::int as n from ${query}`, params)).rows[0]?.n ?? -1;

  /** Rows of every table, then the database's files and the WAL after a checkpoint. */
  async function expectNowhere(values: string[]): Promise<void> {
    const rows = await searchDatabaseText(cluster.databaseUrl, [...values, ...values.flatMap(shiftedBase64)]);
    expect(rows.tables).toBeGreaterThan(4);
    expect(rows.hits).toEqual([]);
    await pg.query('checkpoint');
    const { rows: dirs } = await pg.query<{ dir: string; oid: number }>(
      `select current_setting('data_directory') as dir, oid::int as oid from pg_database where datname = current_database()`,
    );
    const { dir, oid } = dirs[0]!;
    for (const sub of [path.join(dir, 'base', String(oid)), path.join(dir, 'pg_wal')]) {
      const files = await searchFilesForBytes(sub, [...values, ...values.flatMap(shiftedBase64)]);
      expect(files.files).toBeGreaterThan(0);
      expect(files.hits).toEqual([]);
    }
  }

  it('serves one mount from both replicas: every read sees the write before it, also after a replica dies', async () => {
    const mount = uniq('shared');
    expect((await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } })).status).toBe(
      204,
    );
    const roundTrips = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        expect((await root.post(`${mount}/data/counter`, { data: { i } })).status).toBe(200);
        const read = await root.get(`${mount}/data/counter`);
        expect(read.body.data).toMatchObject({ data: { i }, metadata: { version: i + 1 } });
      }
    };
    await roundTrips(0, 40);
    await cluster.processes.kv[0]!.stop();
    await roundTrips(40, 50);
    await cluster.addKvReplica();
    await roundTrips(50, 60);
    const concurrent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => root.post(`${mount}/data/parallel`, { data: { i } })),
    );
    expect(concurrent.map((r) => r.body.data.version).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('destroy leaves nothing of the destroyed versions in the database, in any form', async () => {
    const mount = uniq('destroy');
    await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } });
    const uuid = await mountUuid(mount);
    const [old, kept] = [needle('old'), needle('kept')];
    await root.post(`${mount}/data/app`, { data: { password: old } });
    await root.post(`${mount}/data/app`, { data: { password: kept } });
    const keysBefore = await count('kv.data_keys where mount_uuid = $1', [uuid]);
    expect(keysBefore).toBe(2);

    expect((await root.post(`${mount}/destroy/app`, { versions: [1] })).status).toBe(204);
    expect(await count('kv.data_keys where mount_uuid = $1', [uuid])).toBe(1);
    expect(
      await count(
        'kv.kv2_versions where mount_uuid = $1 and version = 1 and ciphertext is null and key_id is null',
        [uuid],
      ),
    ).toBe(1);
    // the events stay in the append-only log
    expect(await count('kv.event_log where stream = $1', [`kv/${uuid}/app`])).toBe(3);
    await expectNowhere([old, kept]);
    expect((await root.get(`${mount}/data/app`)).body.data.data).toEqual({ password: kept });
    expect(
      (await root.get(`${mount}/data/app`, { query: { version: 1 } })).body.data.metadata.destroyed,
    ).toBe(true);
  });

  it('DELETE metadata leaves nothing of any version in the database', async () => {
    const mount = uniq('delmeta');
    await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } });
    const uuid = await mountUuid(mount);
    const values = [needle('a'), needle('b')];
    for (const v of values) await root.post(`${mount}/data/k`, { data: { v } });
    expect((await root.delete(`${mount}/metadata/k`)).status).toBe(204);
    expect(await count('kv.data_keys where mount_uuid = $1', [uuid])).toBe(0);
    expect(await count('kv.kv2_versions where mount_uuid = $1', [uuid])).toBe(0);
    await expectNowhere(values);
    expect((await root.get(`${mount}/metadata/k`)).status).toBe(404);
  });

  it("destroys a revoked token's cubbyhole in the database", async () => {
    const created = await root.post('auth/token/create', { policies: ['default'] });
    const token = root.withToken(created.body.auth.client_token);
    const value = needle('cubby');
    const path1 = uniq('note');
    await token.put(`cubbyhole/${path1}`, { value });
    expect(await count('kv.flat_secrets where path = $1', [path1])).toBe(1);
    expect((await token.post('auth/token/revoke-self', {})).status).toBe(204);
    await waitFor(async () => (await count('kv.flat_secrets where path = $1', [path1])) === 0, {
      timeoutMs: 15_000,
    });
    await expectNowhere([value]);
  });

  it("erases a disabled mount's data", async () => {
    const mount = uniq('disable');
    await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } });
    const uuid = await mountUuid(mount);
    await root.put(`${mount}/a`, { v: needle('mount') });
    expect(await count('kv.data_keys where mount_uuid = $1', [uuid])).toBe(1);
    expect((await root.delete(`sys/mounts/${mount}`)).status).toBe(204);
    await waitFor(async () => (await count('kv.data_keys where mount_uuid = $1', [uuid])) === 0, {
      timeoutMs: 15_000,
    });
    expect(await count('kv.flat_secrets where mount_uuid = $1', [uuid])).toBe(0);
  });
});
