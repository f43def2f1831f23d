import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDevServer, START_TIMEOUT_MS, type DevServer } from './support';

jest.setTimeout(60_000);

/** `npm start`: the banner, the well-known root token, default mounts, ops health, shutdown. */
describe('dev server', () => {
  let dev: DevServer;

  beforeAll(async () => {
    dev = await startDevServer({ COFFER_DEV_ROOT_TOKEN_ID: 'dev-root' });
  }, START_TIMEOUT_MS);
  afterAll(() => dev?.stop());

  it('prints exactly "Unseal Key: <base64>" and "Root Token: <token>" lines and the addresses', () => {
    const lines = dev.process.output().split('\n');
    expect(lines.filter((l) => /^Unseal Key: [A-Za-z0-9+/]+=*$/.test(l))).toHaveLength(1);
    expect(lines).toContain('Root Token: dev-root');
    expect(Buffer.from(dev.unsealKey, 'base64').length).toBeGreaterThanOrEqual(16);
    expect(dev.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(dev.opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('uses COFFER_DEV_ROOT_TOKEN_ID as a root token', async () => {
    expect(dev.rootToken).toBe('dev-root');
    const res = await dev.client.get('auth/token/lookup-self');
    expect(res.status).toBe(200);
    expect(res.body.data.policies).toEqual(['root']);
  });

  it('mounts secret/ as kv v2 next to cubbyhole/, identity/ and sys/', async () => {
    const mounts = (await dev.client.get('sys/mounts')).body.data;
    expect(mounts['secret/']).toMatchObject({ type: 'kv', options: { version: '2' } });
    expect(mounts['cubbyhole/']).toMatchObject({ type: 'cubbyhole' });
    expect(mounts['identity/']).toMatchObject({ type: 'identity' });
    expect(mounts['sys/']).toMatchObject({ type: 'system' });
    expect((await dev.client.put('secret/data/hello', { data: { foo: 'world' } })).status).toBe(200);
    expect((await dev.client.get('secret/data/hello')).body.data.data).toEqual({ foo: 'world' });
    expect((await dev.client.put('cubbyhole/note', { v: '1' })).status).toBe(204);
    expect((await dev.client.get('cubbyhole/note')).body.data).toEqual({ v: '1' });
  });

  it('serves GET /health on the ops listener', async () => {
    const res = await fetch(`${dev.opsUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it(
    'prints a fresh root token when none is configured',
    async () => {
      const other = await startDevServer();
      try {
        expect(other.rootToken).not.toBe('dev-root');
        expect(other.rootToken.length).toBeGreaterThanOrEqual(20);
        expect((await other.client.get('auth/token/lookup-self')).status).toBe(200);
      } finally {
        await other.stop();
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'creates a missing COFFER_DEV_DATA_DIR (and its parents) with owner-only access',
    async () => {
      const parent = await mkdtemp(path.join(tmpdir(), 'coffer-dev-missing-'));
      const dataDir = path.join(parent, 'not', 'there', 'yet');
      try {
        const server = await startDevServer({ COFFER_DEV_DATA_DIR: dataDir });
        try {
          expect((await server.client.put('secret/data/kept', { data: { a: '1' } })).status).toBe(200);
          expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
          expect((await stat(path.join(dataDir, 'pgdata'))).isDirectory()).toBe(true);
          expect((await stat(path.join(dataDir, 'dev-unseal-key'))).mode & 0o777).toBe(0o600);
        } finally {
          expect((await server.stop()).code).toBe(0);
        }
      } finally {
        await rm(parent, { recursive: true, force: true });
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'shuts down gracefully on SIGINT and SIGTERM (exit code 0, port released)',
    async () => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        const server = await startDevServer();
        server.process.kill(signal);
        const exit = await server.process.exited;
        expect(exit).toEqual({ code: 0, signal: null });
        await expect(fetch(`${server.baseUrl}/v1/sys/health`)).rejects.toThrow();
      }
    },
    START_TIMEOUT_MS,
  );
});
