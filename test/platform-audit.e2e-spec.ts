import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  uniq,
  type ApiClient,
  type ManagedProcess,
} from './support';

jest.setTimeout(120_000);

interface Running {
  client: ApiClient;
  processes: ManagedProcess[];
  stop(): Promise<unknown>;
}

const starters: Record<'dev' | 'cluster', () => Promise<Running>> = {
  dev: async () => {
    const dev = await startDevServer();
    return { client: dev.client, processes: [dev.process], stop: () => dev.stop() };
  },
  cluster: async () => {
    const cluster = await startCluster({ label: 'audit' });
    const { coreSys, gateway, services } = cluster.processes;
    return {
      client: cluster.client,
      processes: [coreSys, gateway, ...Object.values(services).flat()],
      stop: () => cluster.stop(),
    };
  },
};

async function auditLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

async function pollFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Audit devices over HTTP: a file device logs every request and response with HMAC-ed values,
 * the canary secret never appears in clear in the audit file or the server logs, sys/audit-hash
 * reproduces the logged hash, and a device that can no longer write refuses requests (fail closed).
 */
describe.each(['dev', 'cluster'] as const)('%s: audit devices', (kind) => {
  let running: Running;
  let root: ApiClient;
  let dir: string;
  let file: string;
  const canary = `canary-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-audit-e2e-'));
    file = path.join(dir, 'audit.log');
    running = await starters[kind]();
    root = running.client;
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await running?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('enables a file device and lists it (sudo)', async () => {
    const res = await root.put('sys/audit/file', { type: 'file', options: { file_path: file } });
    expect(res.status).toBe(204);
    const list = await root.get('sys/audit');
    expect(list.status).toBe(200);
    expect(list.body.data['file/']).toMatchObject({
      type: 'file',
      path: 'file/',
      options: { file_path: file },
    });
    expect((await root.put('sys/audit/file', { type: 'file', options: { file_path: file } })).status).toBe(
      400,
    );
  });

  it('logs a kv write with the canary HMAC-ed, as sys/audit-hash computes it, and never in clear', async () => {
    const key = uniq('canary');
    expect((await root.put(`secret/data/${key}`, { data: { password: canary } })).status).toBe(200);
    const entries = await pollFor(async () => {
      const parsed = (await auditLines(file)).map((l) => JSON.parse(l) as Record<string, any>);
      const mine = parsed.filter((e) => e['request']?.path === `secret/data/${key}`);
      return mine.length >= 2 ? mine : undefined;
    }, 'the request and response entries');
    const request = entries.find((e) => e['type'] === 'request');
    const response = entries.find((e) => e['type'] === 'response');
    // root holds both create and update, so the gateway asks no existence check: "update"
    expect(['create', 'update']).toContain(request?.['request'].operation);
    expect(request?.['request']).toMatchObject({
      mount_type: 'kv',
      mount_point: 'secret/',
      namespace: { id: 'root' },
    });
    expect(response?.['request'].id).toBe(request?.['request'].id);
    const logged = request?.['request'].data.data.password as string;
    expect(logged).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const hash = await root.post('sys/audit-hash/file', { input: canary });
    expect(hash.status).toBe(200);
    expect(hash.body.data.hash).toBe(logged);

    expect((await root.get(`secret/data/${key}`)).body.data.data.password).toBe(canary);
    await pollFor(
      async () =>
        (await auditLines(file)).filter((l) => l.includes(`secret/data/${key}`)).length >= 4
          ? true
          : undefined,
      'the read entries',
    );
    for (const line of await auditLines(file)) expect(line).not.toContain(canary);
    for (const p of running.processes) expect(p.output()).not.toContain(canary);
  });

  it('does not audit seal-status or health', async () => {
    const before = (await auditLines(file)).length;
    expect((await root.get('sys/seal-status')).status).toBe(200);
    expect((await root.get('sys/health')).status).toBe(200);
    expect((await root.get('sys/audit')).status).toBe(200);
    await pollFor(
      async () => ((await auditLines(file)).length >= before + 2 ? true : undefined),
      'sys/audit entries',
    );
    const added = (await auditLines(file)).slice(before).map((l) => JSON.parse(l) as Record<string, any>);
    expect(added.map((e) => e['request'].path)).toEqual(['sys/audit', 'sys/audit']);
  });

  it('logs a wrapped answer by its wrap_info (token and accessor HMAC-ed), without its data', async () => {
    const key = uniq('wrapped');
    const secret = `wrapped-${randomBytes(8).toString('hex')}`;
    expect((await root.put(`secret/data/${key}`, { data: { password: secret } })).status).toBe(200);
    const res = await root.get(`secret/data/${key}`, { headers: { 'x-vault-wrap-ttl': '5m' } });
    expect(res.status).toBe(200);
    const info = res.body.wrap_info;
    const response = await pollFor(async () => {
      const parsed = (await auditLines(file)).map((l) => JSON.parse(l) as Record<string, any>);
      return parsed.find(
        (e) =>
          e['type'] === 'response' && e['request']?.path === `secret/data/${key}` && e['response']?.wrap_info,
      );
    }, 'the wrapped response entry');
    const hashOf = async (input: string) =>
      (await root.post('sys/audit-hash/file', { input })).body.data.hash as string;
    expect(response['response'].wrap_info).toEqual({
      token: await hashOf(info.token),
      accessor: await hashOf(info.accessor),
      ttl: 300,
      creation_time: info.creation_time,
      creation_path: `secret/data/${key}`,
    });
    expect(response['response'].data).toBeUndefined();
    expect(response['auth'].token_type).toBe('service');
    for (const line of await auditLines(file)) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain(info.token);
    }
  });

  it('fails closed: once the file cannot be written, a write is refused and nothing is stored', async () => {
    const key = uniq('refused');
    await rm(file);
    await mkdir(file);
    const res = await root.put(`secret/data/${key}`, { data: { password: canary } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errors: ['internal error'] });
    await rm(file, { recursive: true });
    expect((await root.get(`secret/data/${key}`)).status).toBe(404);
    expect((await root.delete('sys/audit/file')).status).toBe(204);
    expect((await root.get('sys/audit')).body.data).toEqual({});
    expect((await root.put(`secret/data/${key}`, { data: { password: 'x' } })).status).toBe(200);
  });
});
