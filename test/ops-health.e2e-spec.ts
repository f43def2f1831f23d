import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ManagedProcess,
  createTestDatabase,
  freePort,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  waitForHttp,
  type TestDatabase,
} from '@coffer/testing';
import { appEntry } from './support/launch/cluster-launcher';
import { renderClusterConfig } from './support/launch/cluster-config';
import { echoLines } from './support/logs';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * Controller health on the ops listener, checked on real processes (core-sys and the gateway):
 * 200 while up; 500 while Postgres or NATS is lost (taken away through a proxy, so the shared
 * servers stay up) and 200 again once back; after SIGTERM with graceful_shutdown_wait_duration,
 * 503 at once while requests are still served, then a clean exit when the wait is over.
 */
const GRACE_S = 4;

jest.setTimeout(120_000);

describe('ops /health of real processes', () => {
  let database: TestDatabase;
  let dir: string;
  let pg: TcpProxy;
  let nats: TcpProxy;
  let configPath: string;
  let apiUrl: string;
  let gatewayOps: string;
  let coreOps: string;
  let coreSys: ManagedProcess;
  let gateway: ManagedProcess;

  const status = async (url: string): Promise<number | 'timeout'> => {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 'timeout';
    }
  };
  const sealStatus = async (): Promise<number> => {
    const res = await fetch(`${apiUrl}/v1/sys/seal-status`, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.status;
  };
  const launch = (name: string, env: Record<string, string> = {}) =>
    ManagedProcess.launch({
      name,
      entry: appEntry(name),
      args: ['-config', configPath],
      env,
      onLine: echoLines(name),
    });
  const startCoreSys = async (): Promise<ManagedProcess> => {
    const proc = launch('core-sys', { COFFER_OPS_LISTEN_ADDRESS: coreOps.replace('http://', '') });
    await waitForHttp(`${coreOps}/health`, { timeoutMs: 60_000, message: `core-sys\n${proc.output()}` });
    return proc;
  };

  beforeAll(async () => {
    database = await createTestDatabase('opshealth', { poolSize: 1 });
    const db = new URL(database.url);
    pg = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) });
    const bus = new URL(natsUrl());
    nats = await startTcpProxy({ host: bus.hostname, port: Number(bus.port || 4222) });
    db.host = pg.address;
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-ops-health-'));
    configPath = path.join(dir, 'cluster.hcl');
    const [apiPort, opsPort, corePort] = await Promise.all([freePort(), freePort(), freePort()]);
    apiUrl = `http://127.0.0.1:${apiPort}`;
    gatewayOps = `http://127.0.0.1:${opsPort}`;
    coreOps = `http://127.0.0.1:${corePort}`;
    await writeFile(
      configPath,
      renderClusterConfig({
        clusterName: 'coffer-ops-health',
        apiAddress: `127.0.0.1:${apiPort}`,
        opsAddress: `127.0.0.1:${opsPort}`,
        databaseUrl: db.toString(),
        natsUrl: `nats://${nats.address}`,
        subjectPrefix: uniqueSubjectPrefix('opshealth'),
        clusterSecret: randomBytes(32).toString('base64'),
        gracefulShutdownWaitSeconds: GRACE_S,
        databaseMaxConnections: 5,
      }),
      { mode: 0o600 },
    );
    coreSys = await startCoreSys();
    gateway = launch('gateway');
    await waitForHttp(`${gatewayOps}/health`, { timeoutMs: 60_000 });
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(2_000), coreSys?.stop(2_000)]);
    await Promise.all([pg?.stop(), nats?.stop()]);
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers 200 with an empty body on every process while up', async () => {
    for (const url of [gatewayOps, coreOps]) {
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    }
    expect(await sealStatus()).toBe(200);
  });

  it('a service answers 500 while Postgres is lost, and 200 once it is back', async () => {
    await pg.cut();
    await waitFor(async () => (await status(coreOps)) === 500, { timeoutMs: 20_000 });
    // the gateway keeps no Postgres connection
    expect(await status(gatewayOps)).toBe(200);
    await pg.restore();
    await waitFor(async () => (await status(coreOps)) === 200, { timeoutMs: 20_000 });
    expect(coreSys.running).toBe(true);
  });

  it('the gateway and the service answer 500 while NATS is lost, and 200 once it is back', async () => {
    await nats.cut();
    await waitFor(async () => (await status(gatewayOps)) === 500 && (await status(coreOps)) === 500, {
      timeoutMs: 20_000,
    });
    await nats.restore();
    await waitFor(async () => (await status(gatewayOps)) === 200 && (await status(coreOps)) === 200, {
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await sealStatus()) === 200, { timeoutMs: 20_000 });
  });

  it('a service answers 503 at once after SIGTERM, still serves during the grace period, then exits 0', async () => {
    const signalled = Date.now();
    coreSys.kill('SIGTERM');
    await waitFor(async () => (await status(coreOps)) === 503, { timeoutMs: 2_000 });
    // requests still reach it and are answered (the gateway forwards them over NATS)
    expect(await sealStatus()).toBe(200);
    expect(coreSys.running).toBe(true);
    const exit = await coreSys.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(GRACE_S * 1000 - 100);
    coreSys = await startCoreSys();
  });

  it('the gateway answers 503 at once after SIGTERM, still serves during the grace period, then exits 0', async () => {
    await waitFor(async () => (await sealStatus()) === 200, { timeoutMs: 20_000 });
    const signalled = Date.now();
    gateway.kill('SIGTERM');
    await waitFor(async () => (await status(gatewayOps)) === 503, { timeoutMs: 2_000 });
    expect(await sealStatus()).toBe(200);
    expect(await status(gatewayOps)).toBe(503);
    expect(gateway.running).toBe(true);
    const exit = await gateway.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(GRACE_S * 1000 - 100);
    // the API and ops listeners are closed
    await expect(fetch(`${apiUrl}/v1/sys/seal-status`)).rejects.toThrow();
    expect(await status(gatewayOps)).toBe('timeout');
  });

  it('refuses to start without a controller block, an api or an ops listener (exit 2)', async () => {
    const bad = path.join(dir, 'bad.hcl');
    await writeFile(bad, 'storage "postgresql" { connection_url = "postgres://x@127.0.0.1/x" }\n');
    const proc = ManagedProcess.launch({
      name: 'gateway-bad',
      entry: appEntry('gateway'),
      args: ['-config', bad],
    });
    expect((await proc.exited).code).toBe(2);
    expect(proc.output()).toContain('a controller block is required');
    expect(proc.output()).toContain('a listener with purpose = "api" is required');
    expect(proc.output()).toContain('a listener with purpose = "ops" is required');
  });
});
