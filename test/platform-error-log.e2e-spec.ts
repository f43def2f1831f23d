import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startCluster, START_TIMEOUT_MS, uniq, type Cluster } from './support';

jest.setTimeout(120_000);

/**
 * A forced internal failure in a real cluster (a kv ciphertext corrupted in Postgres) reaches the
 * logs exactly once across the gateway and engine processes, with the request id, the subject,
 * the code and the cause, and no secret, token or body anywhere; an expected 4xx logs nothing.
 */
describe('cluster: one log line per internal error', () => {
  let cluster: Cluster;
  let pg: Client;
  const secret = `never-logged-${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'errlog' });
    pg = new Client({ connectionString: cluster.databaseUrl });
    await pg.connect();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await pg?.end();
    await cluster?.stop();
  });

  const outputs = (): string[] => {
    const { coreSys, kv, gateway } = cluster.processes;
    return [coreSys, gateway, ...kv].flatMap((p) => p.output().split('\n'));
  };
  const failureLines = (): string[] => outputs().filter((line) => / failed: /.test(line));

  it('logs a corrupted ciphertext once, where it happened, without the secret', async () => {
    const key = uniq('corrupt');
    const written = await cluster.client.put(`secret/data/${key}`, { data: { password: secret } });
    expect(written.status).toBe(200);
    // flip a bit of the authentication tag: decryption must fail
    const updated = await pg.query(
      `update kv.kv2_versions
          set ciphertext = set_byte(ciphertext, length(ciphertext) - 1,
                                    get_byte(ciphertext, length(ciphertext) - 1) # 1)
        where path like $1`,
      [`%${key}`],
    );
    expect(updated.rowCount).toBe(1);
    const before = failureLines().length;

    const res = await cluster.client.get(`secret/data/${key}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errors: ['internal error'] });

    const line = await cluster.processes.kv[0]?.waitForLine(/request \S+ to "kv\.[^"]+" failed: internal: /);
    const requestId = /request (\S+) to/.exec(line ?? '')?.[1] ?? '';
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(line).toMatch(/authentication failed/);
    const lines = failureLines().slice(before);
    expect(lines.filter((l) => l.includes(requestId))).toHaveLength(1);
    for (const l of outputs()) {
      expect(l).not.toContain(secret);
      expect(l).not.toContain(cluster.rootToken);
    }
  });

  it('logs nothing for a 404 or a 403', async () => {
    const before = failureLines().length;
    expect((await cluster.client.get(`secret/data/${uniq('missing')}`)).status).toBe(404);
    expect((await cluster.client.withToken('not-a-token').get('secret/data/x')).status).toBe(403);
    expect(failureLines().length).toBe(before);
  });
});
