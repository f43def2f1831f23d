import {
  startCluster,
  startExtraGateway,
  START_TIMEOUT_MS,
  uniq,
  type ApiClient,
  type Cluster,
  type ExtraGateway,
} from './support';

jest.setTimeout(120_000);

/** Reads per gateway after each change: enough that both kv replicas (one NATS queue group) answer some. */
const READS = 6;

/**
 * kv replicas serve reads from an in-memory read model (libs/kv/src/shared/read-fence.ts). Two
 * gateways in front of two kv replicas, caches warmed through both: every read that follows a
 * write's answer, through either gateway and whichever replica answers, sees that write; a
 * destroyed or deleted secret is gone for every read that follows the destroy's answer.
 */
describe('cluster: kv read caches stay coherent across gateways and replicas', () => {
  let cluster: Cluster;
  let extra: ExtraGateway | undefined;
  let gateways: ApiClient[];

  beforeAll(async () => {
    cluster = await startCluster({ label: 'kvcache', kvReplicas: 2, readyTimeoutMs: 240_000 });
    extra = await startExtraGateway(cluster);
    gateways = [cluster.client, extra.client];
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await extra?.stop();
    await cluster?.stop();
  });

  const kv2 = async (): Promise<string> => {
    const mount = uniq('cache');
    const res = await cluster.client.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } });
    expect(res.status).toBe(204);
    return mount;
  };
  /** READS reads of `path` through every gateway at once. */
  const readEverywhere = (path: string, query?: Record<string, string>) =>
    Promise.all(
      gateways.flatMap((gw) => Array.from({ length: READS }, () => gw.get(path, query ? { query } : {}))),
    );

  it('a read through either gateway sees the write acknowledged just before it', async () => {
    const mount = await kv2();
    const path = `${mount}/data/counter`;
    expect((await cluster.client.post(path, { data: { i: 0 } })).status).toBe(200);
    for (const read of await readEverywhere(path)) expect(read.body.data.data).toEqual({ i: 0 });
    for (let i = 1; i <= 12; i++) {
      const writer = gateways[i % 2]!;
      expect((await writer.post(path, { data: { i } })).status).toBe(200);
      for (const read of await readEverywhere(path)) {
        expect(read.status).toBe(200);
        expect(read.body.data).toMatchObject({ data: { i }, metadata: { version: i + 1 } });
      }
    }
  });

  it('readers running during writes never see a version older than the last acknowledged one', async () => {
    const mount = await kv2();
    const path = `${mount}/data/hot`;
    expect((await cluster.client.post(path, { data: { i: 0 } })).status).toBe(200);
    let acknowledged = 1;
    let writing = true;
    const stale: string[] = [];
    const reader = async (gw: ApiClient) => {
      let reads = 0;
      while (writing || reads === 0) {
        const floor = acknowledged;
        const read = await gw.get(path);
        const seen = read.body.data?.metadata?.version as number;
        if (read.status !== 200 || seen < floor)
          stale.push(`status ${read.status} version ${seen} < ${floor}`);
        reads++;
      }
      return reads;
    };
    const readers = gateways.flatMap((gw) => [reader(gw), reader(gw), reader(gw)]);
    for (let i = 1; i <= 12; i++) {
      const res = await gateways[i % 2]!.post(path, { data: { i } });
      expect(res.status).toBe(200);
      acknowledged = res.body.data.version as number;
    }
    writing = false;
    const reads = await Promise.all(readers);
    expect(stale).toEqual([]);
    expect(reads.every((n) => n > 0)).toBe(true);
  });

  it('a destroyed version, a deleted version and deleted metadata are gone from every cache at once', async () => {
    const mount = await kv2();
    const path = `${mount}/data/app`;
    await cluster.client.post(path, { data: { v: 'one' } });
    await cluster.client.post(path, { data: { v: 'two' } });
    for (const read of await readEverywhere(path)) expect(read.body.data.data).toEqual({ v: 'two' });
    for (const read of await readEverywhere(path, { version: '1' }))
      expect(read.body.data.data).toEqual({ v: 'one' });

    expect((await gateways[1]!.post(`${mount}/destroy/app`, { versions: [2] })).status).toBe(204);
    for (const read of await readEverywhere(path)) {
      expect(read.status).toBe(404);
      expect(read.body.data).toMatchObject({ data: null, metadata: { version: 2, destroyed: true } });
    }
    for (const read of await readEverywhere(path, { version: '1' }))
      expect(read.body.data.data).toEqual({ v: 'one' });

    expect((await gateways[0]!.post(`${mount}/delete/app`, { versions: [1] })).status).toBe(204);
    for (const read of await readEverywhere(path, { version: '1' })) {
      expect(read.status).toBe(404);
      expect(read.body.data.data).toBeNull();
    }
    expect((await gateways[1]!.post(`${mount}/undelete/app`, { versions: [1] })).status).toBe(204);
    for (const read of await readEverywhere(path, { version: '1' }))
      expect(read.body.data.data).toEqual({ v: 'one' });

    expect((await gateways[0]!.delete(`${mount}/metadata/app`)).status).toBe(204);
    for (const read of [...(await readEverywhere(path)), ...(await readEverywhere(path, { version: '1' }))]) {
      expect(read.status).toBe(404);
    }
  });

  it('kv v1 and cubbyhole: overwrites and deletes through one gateway are seen through the other at once', async () => {
    const mount = uniq('cache1');
    expect((await cluster.client.post(`sys/mounts/${mount}`, { type: 'kv' })).status).toBe(204);
    for (const prefix of [mount, 'cubbyhole']) {
      const path = `${prefix}/${uniq('k')}`;
      expect((await gateways[0]!.post(path, { v: 1 })).status).toBe(204);
      for (const read of await readEverywhere(path)) expect(read.body.data).toEqual({ v: 1 });
      expect((await gateways[1]!.post(path, { v: 2 })).status).toBe(204);
      for (const read of await readEverywhere(path)) expect(read.body.data).toEqual({ v: 2 });
      expect((await gateways[0]!.delete(path)).status).toBe(204);
      for (const read of await readEverywhere(path)) expect(read.status).toBe(404);
      expect((await gateways[1]!.post(path, { v: 3 })).status).toBe(204);
      for (const read of await readEverywhere(path)) expect(read.body.data).toEqual({ v: 3 });
    }
  });
});
