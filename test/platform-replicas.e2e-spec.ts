import { waitFor } from '@coffer/testing';
import { randomBytes } from 'node:crypto';
import { waitForEngines } from './support/launch/bootstrap';
import { startCluster, START_TIMEOUT_MS, type Cluster } from './support';

jest.setTimeout(120_000);

interface WriteResult {
  key: string;
  value: string;
  status: number | 'aborted';
  /** true when it was sent after the replica was killed */
  afterKill: boolean;
}

/**
 * Two kv replicas share the "kv" queue group. One is SIGKILLed in the middle of a stream of
 * writes: requests it had taken get no answer (the client gives up on them: unacknowledged), and
 * every write that was acknowledged with a 2xx must read back afterwards.
 */
describe('cluster: kv replicas', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({ kvReplicas: 2, label: 'replicas' });
  }, START_TIMEOUT_MS);
  afterAll(() => cluster?.stop());

  it('serve one mount consistently: every write reads back at once, whichever replica answers', async () => {
    const root = cluster.client;
    for (let i = 0; i < 40; i++) {
      const value = randomBytes(8).toString('hex');
      expect((await root.put(`secret/data/consistent/k${i}`, { data: { value } })).status).toBe(200);
      const read = await root.get(`secret/data/consistent/k${i}`);
      expect(read.status).toBe(200);
      expect(read.body.data.data.value).toBe(value);
    }
    const list = await root.list('secret/metadata/consistent');
    expect(list.body.data.keys).toHaveLength(40);
  });

  it('lose no acknowledged write when one replica is killed during a stream of writes', async () => {
    const root = cluster.client;
    const results: WriteResult[] = [];
    const victim = cluster.processes.kv[0]!;
    let killed = false;
    let n = 0;
    let acknowledgedBeforeKill = 0;
    let acknowledgedAfterKill = 0;
    const writer = async () => {
      for (;;) {
        if (killed && acknowledgedAfterKill >= 200) return;
        const key = `stream/w-${n++}`;
        const value = randomBytes(12).toString('base64url');
        const afterKill = killed;
        // A request the dead replica had taken is never answered: give up on it (unacknowledged).
        const res = await root
          .put(`secret/data/${key}`, { data: { value } }, { timeoutMs: 5_000 })
          .then((r) => r.status)
          .catch(() => 'aborted' as const);
        results.push({ key, value, status: res, afterKill });
        if (res === 200 && afterKill) acknowledgedAfterKill++;
        else if (res === 200) acknowledgedBeforeKill++;
        if (results.length > 5_000) throw new Error('the write stream never reached its goal');
      }
    };
    const killer = async () => {
      await waitFor(async () => acknowledgedBeforeKill >= 150, {
        timeoutMs: 60_000,
        intervalMs: 5,
        message: 'waiting for 150 writes',
      });
      victim.kill('SIGKILL');
      await victim.exited;
      killed = true;
    };
    await Promise.all([killer(), ...Array.from({ length: 16 }, writer)]);

    const acknowledged = results.filter((r) => r.status === 200);
    const before = acknowledged.filter((r) => !r.afterKill);
    const after = acknowledged.filter((r) => r.afterKill);
    expect(before.length).toBeGreaterThanOrEqual(150);
    expect(after.length).toBeGreaterThanOrEqual(200);
    // Anything other than 200 must be an honest failure, never a success code with a lost write.
    for (const r of results)
      if (r.status !== 200) expect(r.status === 'aborted' || r.status >= 500).toBe(true);

    const lost: string[] = [];
    for (const r of acknowledged) {
      const read = await root.get(`secret/data/${r.key}`);
      if (read.status !== 200 || read.body.data.data.value !== r.value) lost.push(`${r.key}: ${read.status}`);
    }
    expect(lost).toEqual([]);
  });

  it('take a replacement replica into the group', async () => {
    const fresh = await cluster.addKvReplica();
    expect(fresh.running).toBe(true);
    await waitForEngines(cluster.baseUrl, cluster.rootToken);
    for (let i = 0; i < 20; i++) {
      const read = await cluster.client.get(`secret/data/consistent/k${i}`);
      expect(read.status).toBe(200);
    }
  });
});
