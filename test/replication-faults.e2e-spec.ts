import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@coffer/testing';
import {
  replicasInSync,
  replicationStatus,
  startDevServer,
  uniq,
  type ApiClient,
  type DevServer,
  type ReplicationStatus,
} from './support';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

jest.setTimeout(600_000);

/** PGlite on disk boots slower than in memory, and this machine is shared. */
const SLOW_BOOT = { bannerTimeoutMs: 180_000 };

type Status = ReplicationStatus;

const status = (client: ApiClient): Promise<Status> => replicationStatus(client, 'dr');

/** Every acknowledged write is on the secondary, none twice, none out of order (see replicasInSync). */
async function expectInSync(primary: ApiClient, secondary: ApiClient): Promise<Status> {
  return (await replicasInSync(primary, secondary, 'dr')).primary;
}

/** `n` kv writes, `parallel` at a time; answers how many were acknowledged (200). */
async function burst(client: ApiClient, n: number, parallel = 8): Promise<number> {
  let acked = 0;
  const prefix = uniq('burst');
  for (let i = 0; i < n; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, n - i) }, (_, j) =>
      client.post(`secret/data/${prefix}-${i + j}`, { data: { n: i + j } }).then(
        (r) => {
          if (r.status === 200) acked += 1;
        },
        // the server died mid-request: not acknowledged
        () => undefined,
      ),
    );
    await Promise.all(batch);
  }
  return acked;
}

/** DR replication under faults: the cluster connection paused and cut, either side killed -9. */
describe('replication faults (two dev servers, the cluster connection through a TCP proxy)', () => {
  let dirA: string;
  let dirB: string;
  let a: DevServer;
  let b: DevServer;
  let clusterA: string;
  let clusterB: string;
  let proxy: TcpProxy;

  const startA = () =>
    startDevServer(
      {
        COFFER_DEV_CLUSTER_ADDRESS: clusterA,
        COFFER_DEV_DATA_DIR: dirA,
        COFFER_DEV_ROOT_TOKEN_ID: 'root-a',
      },
      SLOW_BOOT,
    );
  const startB = () =>
    startDevServer(
      {
        COFFER_DEV_CLUSTER_ADDRESS: clusterB,
        COFFER_DEV_DATA_DIR: dirB,
        COFFER_DEV_ROOT_TOKEN_ID: 'root-b',
      },
      SLOW_BOOT,
    );

  beforeAll(async () => {
    dirA = await mkdtemp(join(tmpdir(), 'coffer-repl-a-'));
    dirB = await mkdtemp(join(tmpdir(), 'coffer-repl-b-'));
    clusterA = `127.0.0.1:${await freePort()}`;
    clusterB = `127.0.0.1:${await freePort()}`;
    a = await startA();
    b = await startB();
    proxy = await startTcpProxy(clusterA);
    // secondaries are told the proxy's address, so the test owns the network between them
    expect(
      (await a.client.post('sys/replication/dr/primary/enable', { primary_cluster_addr: proxy.address }))
        .status,
    ).toBe(204);
    const res = await a.client.post('sys/replication/dr/primary/secondary-token', { id: 'b' });
    expect(res.status).toBe(200);
    const token = res.body.wrap_info.token as string;
    expect((await b.client.post('sys/replication/dr/secondary/enable', { token })).status).toBe(204);
    await expectInSync(a.client, b.client);
  }, 300_000);

  afterAll(async () => {
    await proxy?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    for (const dir of [dirA, dirB]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a network partition (paused connection) during a write burst: catches up after', async () => {
    const writes = burst(a.client, 60);
    proxy.pause();
    expect(await writes).toBe(60);
    const p = await status(a.client);
    expect((await status(b.client)).last_remote_wal).toBeLessThanOrEqual(p.last_wal ?? 0);
    proxy.resume();
    await expectInSync(a.client, b.client);
  });

  it('connections cut repeatedly during a write burst: resumes from its position', async () => {
    const writes = burst(a.client, 120);
    for (let i = 0; i < 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      proxy.drop();
    }
    expect(await writes).toBe(120);
    await expectInSync(a.client, b.client);
  });

  it('the secondary killed -9 during a write burst: restarts and resumes', async () => {
    const writes = burst(a.client, 80);
    await waitFor(async () => ((await status(b.client)).last_remote_wal ?? 0) > 0, { timeoutMs: 10_000 });
    b.process.kill('SIGKILL');
    await b.process.exited;
    expect(await writes).toBe(80);
    b = await startB();
    await expectInSync(a.client, b.client);
  });

  it('the primary killed -9 during a write burst: every acknowledged write reaches the secondary', async () => {
    let acked = 0;
    const writes = burst(a.client, 200).then((n) => (acked = n));
    await new Promise((resolve) => setTimeout(resolve, 500));
    a.process.kill('SIGKILL');
    await writes;
    expect(acked).toBeLessThanOrEqual(200);
    // A dev server restarted on a killed PGlite data dir has been seen to fail its first boot
    // ("an engine did not receive the barrier keyring", dev bootstrap); the second boot works.
    a = await startA().catch(() => startA());
    expect((await status(a.client)).mode).toBe('primary');
    // what the restarted primary has (every acknowledged write, durably committed) the secondary gets
    const p = await expectInSync(a.client, b.client);
    expect(p.last_wal).toBeGreaterThan(0);
  });
});
