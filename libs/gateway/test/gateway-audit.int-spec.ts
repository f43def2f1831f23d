import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditHmac, type AuditDeviceConfig } from '@coffer/contracts';
import { call, ROOT_TOKEN, startHarness, type Harness } from './harness';

/**
 * The gateway's audit pipeline against the fake core-sys: entry shapes and HMACs as Vault's, the
 * unaudited raw sys routes, and fail closed (an unwritable file, a hanging socket).
 */

const CANARY = 'canary-d6f1c0ffee-secret';
const SALT = 'salt-1b7e4c2a';
const h1 = (value: string) => auditHmac(SALT, value);

type Entry = Record<string, any>;

async function linesOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

describe('audit pipeline', () => {
  let h: Harness;
  let dir: string;
  let file: string;

  const useDevices = async (devices: AuditDeviceConfig[]) => {
    h.core.auditDevices = devices;
    await h.core.invalidate('audit');
  };
  const fileDevice = (path: string, filePath: string, options: Record<string, string> = {}) => ({
    path,
    type: 'file',
    options: { file_path: filePath, ...options },
    salt: SALT,
  });

  beforeAll(async () => {
    h = await startHarness({ auditTimeoutMs: 300 });
    dir = await mkdtemp(join(tmpdir(), 'coffer-audit-'));
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    file = join(dir, `audit-${Math.random().toString(36).slice(2)}.log`);
    await useDevices([fileDevice('file/', file)]);
  });

  it('writes one request and one response line per request, strings HMAC-ed, the rest clear', async () => {
    const res = await call(h, 'PUT', '/v1/test/echo/x', {
      body: { password: CANARY, n: 3, flag: true, nested: { list: ['a', 1] } },
    });
    expect(res.status).toBe(200);
    const lines = await linesOf(file);
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(CANARY);
    expect(lines.join('\n')).not.toContain(ROOT_TOKEN);
    const [request, response] = lines.map((l) => JSON.parse(l) as Entry);
    expect(request).toMatchObject({
      type: 'request',
      auth: {
        client_token: h1(ROOT_TOKEN),
        accessor: h1('root-accessor'),
        display_name: 'token',
        policies: ['root'],
        token_policies: ['root'],
        token_type: 'service',
      },
      request: {
        id: res.body.request_id,
        operation: 'update',
        mount_type: 'testeng',
        mount_accessor: 'testeng_test',
        mount_point: 'test/',
        client_token: h1(ROOT_TOKEN),
        client_token_accessor: h1('root-accessor'),
        namespace: { id: 'root' },
        path: 'test/echo/x',
        data: { password: h1(CANARY), n: 3, flag: true, nested: { list: [h1('a'), 1] } },
        remote_address: '127.0.0.1',
      },
    });
    expect(typeof request?.['time']).toBe('string');
    expect(request?.['error']).toBeUndefined();
    expect(response).toMatchObject({
      type: 'response',
      request: { id: res.body.request_id, path: 'test/echo/x' },
      response: {
        mount_type: 'testeng',
        data: { operation: h1('update'), body: { password: h1(CANARY), n: 3 } },
      },
    });
  });

  it('honours hmac_accessor=false, log_raw and prefix', async () => {
    await useDevices([fileDevice('file/', file, { hmac_accessor: 'false', prefix: 'AUDIT ' })]);
    await call(h, 'PUT', '/v1/test/echo/x', { body: { k: 'v' } });
    const [line] = await linesOf(file);
    expect(line?.startsWith('AUDIT {')).toBe(true);
    const entry = JSON.parse(line?.slice('AUDIT '.length) ?? '') as Entry;
    expect(entry['auth'].accessor).toBe('root-accessor');
    expect(entry['request'].data.k).toBe(h1('v'));

    const raw = join(dir, 'raw.log');
    await useDevices([fileDevice('raw/', raw, { log_raw: 'true' })]);
    await call(h, 'PUT', '/v1/test/echo/x', { body: { k: 'v' } });
    const [rawLine] = await linesOf(raw);
    expect((JSON.parse(rawLine ?? '') as Entry)['request'].data.k).toBe('v');
  });

  it('logs denied and failed requests with their error', async () => {
    const denied = await call(h, 'GET', '/v1/test/echo/x', { token: 'not-a-token' });
    expect(denied.status).toBe(403);
    const failed = await call(h, 'GET', '/v1/test/special/bad');
    expect(failed.status).toBe(400);
    const entries = (await linesOf(file)).map((l) => JSON.parse(l) as Entry);
    expect(entries.map((e) => e['type'])).toEqual(['request', 'response', 'request', 'response']);
    expect(entries[0]?.['request'].client_token).toBe(h1('not-a-token'));
    expect(entries[1]?.['error']).toEqual(expect.any(String));
    expect(entries[3]?.['error']).toBe('check-and-set parameter did not match the current version');
  });

  it('does not audit the raw seal and health routes', async () => {
    await call(h, 'GET', '/v1/sys/seal-status', { token: null });
    await call(h, 'GET', '/v1/sys/health', { token: null });
    expect(await linesOf(file)).toEqual([]);
  });

  it('audits nothing and refuses nothing without devices', async () => {
    await useDevices([]);
    expect((await call(h, 'PUT', '/v1/test/echo/x', { body: {} })).status).toBe(200);
  });

  it('fails closed: a file that became unwritable refuses the request before the engine sees it', async () => {
    expect((await call(h, 'PUT', '/v1/test/echo/before', { body: {} })).status).toBe(200);
    await rm(file);
    await mkdir(file); // the path is now a directory: appends fail
    const seen = h.engine.requests.length;
    const res = await call(h, 'PUT', '/v1/test/echo/after', { body: { v: CANARY } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errors: ['internal error'] });
    expect(h.engine.requests).toHaveLength(seen);
  });

  it('one device that logs is enough', async () => {
    await useDevices([fileDevice('broken/', join(dir, 'missing-dir', 'a.log')), fileDevice('file/', file)]);
    expect((await call(h, 'PUT', '/v1/test/echo/x', { body: {} })).status).toBe(200);
    expect(await linesOf(file)).toHaveLength(2);
  });

  describe('socket devices', () => {
    let server: Server;
    const sockets: Socket[] = [];
    let received = '';
    let reading = true;
    const socketPath = () => join(dir, 'audit.sock');

    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.push(socket);
        socket.on('data', (chunk) => (received += chunk.toString()));
        if (!reading) socket.pause();
      });
      await new Promise<void>((resolve) => server.listen(socketPath(), resolve));
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('writes entries to a unix socket', async () => {
      await useDevices([
        {
          path: 'sock/',
          type: 'socket',
          options: { address: socketPath(), socket_type: 'unix' },
          salt: SALT,
        },
      ]);
      expect((await call(h, 'PUT', '/v1/test/echo/x', { body: { s: CANARY } })).status).toBe(200);
      const deadline = Date.now() + 5_000;
      while (received.split('\n').filter(Boolean).length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
      expect(received).toContain(h1(CANARY));
      expect(received).not.toContain(CANARY);
    });

    it('a hanging socket refuses requests after the bounded wait instead of hanging', async () => {
      reading = false;
      for (const s of sockets) s.pause();
      await useDevices([
        {
          path: 'sock/',
          type: 'socket',
          options: { address: socketPath(), socket_type: 'unix', write_timeout: '5s' },
          salt: SALT,
        },
      ]);
      // a peer that never reads: once the kernel buffers are full, writes never complete
      const big = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, `v${i}`]));
      let refused: { ms: number; status: number } | undefined;
      for (let i = 0; i < 400 && !refused; i++) {
        const started = Date.now();
        const res = await call(h, 'PUT', '/v1/test/echo/x', { body: big });
        if (res.status !== 200) refused = { ms: Date.now() - started, status: res.status };
      }
      expect(refused?.status).toBe(500);
      expect(refused?.ms).toBeLessThan(3_000);
      // the device still hangs: the next request is refused before the engine sees it
      const seen = h.engine.requests.length;
      const started = Date.now();
      const res = await call(h, 'PUT', '/v1/test/echo/y', { body: { v: CANARY } });
      expect(res.status).toBe(500);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(h.engine.requests).toHaveLength(seen);
    });
  });
});
