import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  searchDatabaseText,
  searchFilesForBytes,
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  uniq,
  type ApiClient,
  type Cluster,
} from './support';

jest.setTimeout(90_000);

/** Secrets that must never reach storage in clear: written through the API, then searched for. */
interface Planted {
  needles: string[];
}

const needle = (label: string) => `coffer-needle-${label}-${randomBytes(12).toString('hex')}`;

async function plantSecrets(root: ApiClient): Promise<Planted> {
  const kv2 = needle('kv2');
  const kv1 = needle('kv1');
  const cubby = needle('cubbyhole');
  const password = needle('password');
  expect((await root.put('secret/data/storage/app', { data: { api_key: kv2 } })).status).toBe(200);
  expect((await root.post('sys/mounts/plain', { type: 'kv', options: { version: '1' } })).status).toBe(204);
  expect((await root.put('plain/storage', { value: kv1 })).status).toBe(204);
  expect((await root.put('cubbyhole/storage', { value: cubby })).status).toBe(204);
  expect((await root.post('sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
  const user = uniq('user');
  expect((await root.put(`auth/userpass/users/${user}`, { password })).status).toBe(204);
  const login = await root.withToken(undefined).post(`auth/userpass/login/${user}`, { password });
  expect(login.status).toBe(200);
  const created = await root.post('auth/token/create', { policies: ['default'] });
  expect(created.status).toBe(200);
  return {
    needles: [
      kv2,
      kv1,
      cubby,
      password,
      login.body.auth.client_token,
      created.body.auth.client_token,
      root.token!,
    ],
  };
}

describe('cluster: no secret is stored in clear', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'storage' });
  }, START_TIMEOUT_MS);
  afterAll(() => cluster?.stop());

  it('finds none of the written values, passwords or tokens in any table, in any encoding', async () => {
    const planted = await plantSecrets(cluster.client);
    const found = await searchDatabaseText(cluster.databaseUrl, planted.needles);
    // The search itself must have looked at real data: both services' event logs and read models.
    expect(found.tables).toBeGreaterThan(4);
    expect(found.rows).toBeGreaterThan(10);
    expect(found.hits).toEqual([]);
  });

  it('can find a planted value when it is stored in clear (the search works)', async () => {
    const marker = needle('control');
    const { Client } = await import('pg');
    const client = new Client({ connectionString: cluster.databaseUrl });
    await client.connect();
    try {
      await client.query('create table public.search_control (note text, blob bytea)');
      await client.query('insert into public.search_control values ($1, $2)', ['x', Buffer.from(marker)]);
    } finally {
      await client.end();
    }
    const found = await searchDatabaseText(cluster.databaseUrl, [marker]);
    expect(found.hits).toEqual([{ table: 'public.search_control', needle: marker }]);
  });
});

describe('dev server with a data directory: no secret in the files, data survives a restart', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-dev-data-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(
    'keeps every secret out of the database files and reads it back after a restart',
    async () => {
      const env = { COFFER_DEV_DATA_DIR: dir, COFFER_DEV_ROOT_TOKEN_ID: 'dev-storage-root' };
      const first = await startDevServer(env);
      let planted: Planted;
      try {
        expect(first.rootToken).toBe('dev-storage-root');
        planted = await plantSecrets(first.client);
      } finally {
        expect((await first.stop()).code).toBe(0);
      }

      const found = await searchFilesForBytes(path.join(dir, 'pgdata'), planted.needles);
      expect(found.files).toBeGreaterThan(100);
      expect(found.hits).toEqual([]);

      const second = await startDevServer(env);
      try {
        expect(second.rootToken).toBe('dev-storage-root');
        expect(second.unsealKey).toBe(first.unsealKey);
        const read = await second.client.get('secret/data/storage/app');
        expect(read.status).toBe(200);
        expect(read.body.data.data.api_key).toBe(planted.needles[0]);
        expect((await second.client.get('plain/storage')).body.data.value).toBe(planted.needles[1]);
      } finally {
        await second.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
