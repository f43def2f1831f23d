import { startAwsServer, waitFor, type AwsServer } from '@coffer/testing';
import { startCluster, START_TIMEOUT_MS, uniq, type Cluster } from './support';
import { eventCount } from './support/event-log';
import { waitForEngines } from './support/launch/bootstrap';

jest.setTimeout(240_000);

/**
 * kill -9 of the cloud-creds service after IAM created a user (and its key) and before the
 * service recorded it: after a restart, the recovery pass finds the write-ahead intent and
 * removes the user, so nothing is orphaned. The same for a root key created by rotate-root, and
 * for a user recorded as issued after the gateway had given up (its lease never registered),
 * with a kill -9 after that: the recovery pass finds no lease for it in core-sys.
 */
describe('cluster: cloud-creds killed between IAM and the record', () => {
  let cluster: Cluster;
  let aws: AwsServer;
  let mount: string;

  beforeAll(async () => {
    aws = await startAwsServer();
    // the gateway gives up on an engine after 5 s: the last test's user outlives its request
    cluster = await startCluster({
      label: 'cloudbcrash',
      readyTimeoutMs: 170_000,
      env: { COFFER_ENGINE_TIMEOUT: '5s' },
    });
    expect((await cluster.client.post('sys/mounts/cloud-b', { type: 'cloud-b' })).status).toBe(204);
    await waitForEngines(cluster.baseUrl, cluster.rootToken);
    mount = uniq('aws');
    expect((await cluster.client.post(`sys/mounts/${mount}`, { type: 'cloud-b' })).status).toBe(204);
    const config = {
      access_key: aws.rootAccessKey,
      secret_key: aws.rootSecretKey,
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
      request_timeout: 3,
    };
    expect((await cluster.client.post(`${mount}/config/root`, config)).status).toBe(204);
    const role = { credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess' };
    expect((await cluster.client.post(`${mount}/roles/crashy`, role)).status).toBe(204);
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
    await aws?.stop();
  });

  const killService = async () => {
    const victim = cluster.processes.services['cloud-creds']?.shift();
    if (!victim) throw new Error('no cloud-creds replica');
    victim.kill('SIGKILL');
    await victim.exited;
  };

  it('leaves no IAM user behind after restart', async () => {
    const root = cluster.client;
    aws.swallow('CreateAccessKey', true);
    const inFlight = root.get(`${mount}/creds/crashy`, { timeoutMs: 60_000 }).catch(() => undefined);
    // IAM has the user and its key; the service never hears back
    await waitFor(() => aws.createdUsers().some((u) => u.keys.size === 1), { timeoutMs: 20_000 });
    await killService();
    aws.swallow('CreateAccessKey', false);
    const answer = await inFlight;
    expect(answer?.status ?? 0).not.toBe(200);
    expect(aws.createdUsers()).toHaveLength(1);

    await cluster.addReplica('cloud-creds');
    await waitFor(() => aws.createdUsers().length === 0, { timeoutMs: 90_000, intervalMs: 250 });
    // the engine works again
    const creds = await root.get(`${mount}/creds/crashy`);
    expect(creds.status).toBe(200);
    expect(aws.createdUsers()).toHaveLength(1);
    expect((await root.put('sys/leases/revoke', { lease_id: creds.body.lease_id })).status).toBe(204);
    expect(aws.createdUsers()).toHaveLength(0);
  });

  it('leaves no stray root key after a rotate-root cut short', async () => {
    const root = cluster.client;
    const rootUser = aws.users.get(aws.rootUser)!;
    aws.swallow('CreateAccessKey', true);
    const inFlight = root
      .post(`${mount}/config/rotate-root`, {}, { timeoutMs: 60_000 })
      .catch(() => undefined);
    await waitFor(() => rootUser.keys.size === 2, { timeoutMs: 20_000 });
    await killService();
    aws.swallow('CreateAccessKey', false);
    await inFlight;

    await cluster.addReplica('cloud-creds');
    await waitFor(() => rootUser.keys.size === 1, { timeoutMs: 90_000, intervalMs: 250 });
    expect([...rootUser.keys.keys()]).toEqual([aws.rootAccessKey]);
    // settled: a rotation runs again and works
    const rotated = await waitFor(
      async () => {
        const res = await root.post(`${mount}/config/rotate-root`, {});
        return res.status === 200 ? (res.body.data.access_key as string) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect([...rootUser.keys.keys()]).toEqual([rotated]);
  });

  it('removes a user issued after the gateway gave up: no lease ever came (kill -9 after it)', async () => {
    const root = cluster.client;
    const late = uniq('late');
    expect((await root.post(`sys/mounts/${late}`, { type: 'cloud-b' })).status).toBe(204);
    // IAM calls may take 15 s together: the held one outlives the gateway's 5 s and still succeeds
    // a key of its own: the root key of the mount above was rotated away
    const key = aws.addKey(aws.rootUser);
    const config = {
      access_key: key.accessKeyId,
      secret_key: key.secretAccessKey,
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
      request_timeout: 15,
    };
    expect((await root.post(`${late}/config/root`, config)).status).toBe(204);
    const role = { credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess' };
    expect((await root.post(`${late}/roles/slow`, role)).status).toBe(204);

    const issuedBefore = await eventCount(cluster.databaseUrl, 'cloud_creds', 'CloudBUserIssued');
    // the access key is the last IAM call: held until the gateway has answered the client
    const release = aws.hang('CreateAccessKey');
    const answer = await root.get(`${late}/creds/slow`, { timeoutMs: 60_000 });
    expect(answer.status).not.toBe(200);
    release();
    // recorded as issued right after the key (the kill must come after that): no lease exists for it
    await waitFor(
      async () => (await eventCount(cluster.databaseUrl, 'cloud_creds', 'CloudBUserIssued')) > issuedBefore,
      {
        timeoutMs: 20_000,
      },
    );
    expect(aws.createdUsers().filter((u) => u.keys.size === 1)).toHaveLength(1);
    expect((await root.list(`sys/leases/lookup/${late}/creds/slow/`)).status).toBe(404);
    await killService();

    const fresh = await cluster.addReplica('cloud-creds');
    await fresh.waitForLine(/was issued but no lease was registered: removing it/, 90_000);
    await waitFor(() => aws.createdUsers().length === 0, { timeoutMs: 30_000, intervalMs: 250 });
  });
});
