import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { startAwsServer, waitFor, type AwsServer } from '@coffer/testing';
import {
  replicasInSync,
  replicationStatus,
  uniq,
  type DevServer,
  activateSecondary,
  readAtIndex,
  startReplicatingDevServer,
} from './support';

jest.setTimeout(600_000);

/** Who the local STS says signed with the issued access key (SigV4 checked there): its ARN. */
async function callerOf(aws: AwsServer, data: { access_key: string; secret_key: string }) {
  const sts = new STSClient({
    region: 'us-east-1',
    endpoint: aws.url,
    credentials: { accessKeyId: data.access_key, secretAccessKey: data.secret_key },
  });
  try {
    return (await sts.send(new GetCallerIdentityCommand({}))).Arn;
  } finally {
    sts.destroy();
  }
}

/**
 * cloud-creds (cloud-b, AWS IAM/STS against the local AWS server) on a secondary, two dev servers:
 * first a performance secondary (the primary's config and roles served there, role writes
 * forwarded, IAM users issued there with the primary's root credentials and leased there), then
 * the same server as a DR secondary, promoted: the primary's config, roles and leases served.
 */
describe('cloud-creds on a performance secondary, then on a promoted DR secondary', () => {
  let aws: AwsServer;
  let a: DevServer;
  let b: DevServer;
  let mount = '';
  const rootConfig = () => ({
    access_key: aws.rootAccessKey,
    secret_key: aws.rootSecretKey,
    region: 'us-east-1',
    iam_endpoint: aws.url,
    sts_endpoint: aws.url,
    max_retries: 0,
    request_timeout: 3,
  });
  const role = { credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess' };

  beforeAll(async () => {
    aws = await startAwsServer();
    const boot = startReplicatingDevServer;
    // one after the other: two dev servers booting at once on a busy machine miss the banner
    a = await boot();
    b = await boot();
  }, 600_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await aws?.stop();
  });

  it("performance: serves the primary's config and roles, forwards role writes, issues credentials locally", async () => {
    mount = uniq('aws');
    expect((await a.client.post(`sys/mounts/${mount}`, { type: 'cloud-b' })).status).toBe(204);
    expect((await a.client.post(`${mount}/config/root`, rootConfig())).status).toBe(204);
    expect((await a.client.post(`${mount}/config/lease`, { lease: '1h', lease_max: '2h' })).status).toBe(204);
    expect((await a.client.post(`${mount}/roles/deploy`, role)).status).toBe(204);
    expect((await a.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(a.client, b.client, 'performance', 'perf-b');

    // the primary's config and role, once streamed (the mount is the primary's: same uuid)
    const served = await waitFor(
      async () => {
        const res = await b.client.get(`${mount}/roles/deploy`);
        return res.status === 200 ? res : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(served.body.data).toEqual((await a.client.get(`${mount}/roles/deploy`)).body.data);
    const rootRead = await b.client.get(`${mount}/config/root`);
    expect(rootRead.body.data).toEqual((await a.client.get(`${mount}/config/root`)).body.data);
    expect(rootRead.text).not.toContain(aws.rootSecretKey);
    expect((await b.client.get(`${mount}/config/lease`)).body.data).toEqual({
      lease: '1h0m0s',
      lease_max: '2h0m0s',
    });

    // a role written through the secondary runs on the primary; read there at its index
    const written = await b.client.post(`${mount}/roles/forwarded`, { ...role, user_path: '/fwd/' });
    expect(written.status).toBe(204);
    const index = written.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    expect((await a.client.get(`${mount}/roles/forwarded`)).body.data?.user_path).toBe('/fwd/');
    expect((await readAtIndex(b.client, `${mount}/roles/forwarded`, index)).body.data.user_path).toBe(
      '/fwd/',
    );
    // asked not to forward: the replicated config is read-only there
    const kept = await b.client.post(
      `${mount}/config/lease`,
      { lease: '5m', lease_max: '10m' },
      {
        headers: { 'X-Vault-No-Request-Forwarding': 'true' },
      },
    );
    expect([kept.status, kept.body.errors]).toEqual([400, ['cannot write to readonly storage']]);

    // creds are the secondary's own: an IAM user made with the primary's root key, leased there
    const callsBefore = aws.calls.length;
    const creds = await b.client.get(`${mount}/creds/forwarded`);
    expect(creds.status).toBe(200);
    expect(creds.body.lease_duration).toBe(3600);
    const user = aws.createdUsers().find((u) => u.arn === creds.body.data.arn);
    expect(user?.path).toBe('/fwd/');
    expect(aws.calls.slice(callsBefore).every((c) => c.accessKeyId === aws.rootAccessKey)).toBe(true);
    expect(await callerOf(aws, creds.body.data)).toMatch(new RegExp(`/${user?.name}$`));
    const leaseId = creds.body.lease_id as string;
    expect((await b.client.put('sys/leases/lookup', { lease_id: leaseId })).status).toBe(200);
    expect((await a.client.put('sys/leases/lookup', { lease_id: leaseId })).status).toBe(400);
    // its revocation on the secondary removes the user
    expect((await b.client.put('sys/leases/revoke', { lease_id: leaseId })).status).toBe(204);
    await waitFor(() => (aws.users.has(user?.name ?? '') ? undefined : true), { timeoutMs: 20_000 });
  });

  it("DR: the promoted secondary serves the primary's config, roles and leases; writes after promotion work", async () => {
    expect((await b.client.post('sys/replication/performance/secondary/disable', {})).status).toBe(204);
    // credentials the primary issued (its lease travels to a DR secondary)
    const issued = await a.client.get(`${mount}/creds/deploy`);
    expect(issued.status).toBe(200);
    const theirs = aws.createdUsers().find((u) => u.arn === issued.body.data.arn);
    expect(theirs).toBeDefined();
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    await activateSecondary(a.client, b.client, 'dr', 'dr-b');
    const later = await a.client.post(`${mount}/roles/later`, { ...role, user_path: '/later/' });
    expect(later.status).toBe(204);
    const expected = {
      root: (await a.client.get(`${mount}/config/root`)).body.data,
      lease: (await a.client.get(`${mount}/config/lease`)).body.data,
      roles: (await a.client.list(`${mount}/roles`)).body.data,
      later: (await a.client.get(`${mount}/roles/later`)).body.data,
    };
    await replicasInSync(a.client, b.client, 'dr');

    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await b.client.post(`${base}/attempt`, {});
    const done = await b.client.post(`${base}/update`, { key: b.unsealKey, nonce: start.body.nonce });
    const decoded = await b.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    const promoted = await b.client.post('sys/replication/dr/secondary/promote', {
      dr_operation_token: decoded.body.data.token as string,
      force: true,
    });
    expect(promoted.status).toBe(200);
    await waitFor(
      async () => ((await replicationStatus(a.client, 'dr')).mode === 'secondary' ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );

    expect({
      root: (await b.client.get(`${mount}/config/root`)).body.data,
      lease: (await b.client.get(`${mount}/config/lease`)).body.data,
      roles: (await b.client.list(`${mount}/roles`)).body.data,
      later: (await b.client.get(`${mount}/roles/later`)).body.data,
    }).toEqual(expected);
    // creds with the primary's root key
    const creds = await b.client.get(`${mount}/creds/later`);
    expect(creds.status).toBe(200);
    const made = aws.createdUsers().find((u) => u.arn === creds.body.data.arn);
    expect(made?.path).toBe('/later/');
    expect(await callerOf(aws, creds.body.data)).toMatch(new RegExp(`/${made?.name}$`));
    // the primary's lease is the promoted cluster's: revoking it there removes the primary's user
    expect((await b.client.put('sys/leases/revoke', { lease_id: issued.body.lease_id })).status).toBe(204);
    await waitFor(() => (aws.users.has(theirs?.name ?? '') ? undefined : true), { timeoutMs: 20_000 });
    // writes to the replicated config and roles after the promotion
    expect((await b.client.post(`${mount}/roles/later`, { user_path: '/after/' })).status).toBe(204);
    expect((await b.client.get(`${mount}/roles/later`)).body.data.user_path).toBe('/after/');
    expect((await b.client.post(`${mount}/config/lease`, { lease: '30m', lease_max: '1h' })).status).toBe(
      204,
    );
    expect((await b.client.get(`${mount}/config/lease`)).body.data).toEqual({
      lease: '30m0s',
      lease_max: '1h0m0s',
    });
  });
});
