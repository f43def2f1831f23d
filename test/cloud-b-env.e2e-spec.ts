import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAwsServer, type AwsServer } from '@coffer/testing';
import { START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';
import { startCloudBTarget } from './support/cloud-b-target';

jest.setTimeout(120_000);

const ROLE = { credential_type: 'federation_token', policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess' };

/** The root credential sources of cloud-b, highest first: payload, CLOUDB_* environment, the SDK's chain. */
describe.each(TARGETS)('%s: cloud-b root credentials from the environment', (kind) => {
  let aws: AwsServer;
  let target: Target;
  let root: ApiClient;
  let mount: string;

  beforeAll(async () => {
    aws = await startAwsServer();
    aws.expectRegion('ap-south-1');
    ({ target, mount } = await startCloudBTarget(kind, 'cloud-b-env', {
      env: {
        CLOUDB_ACCESS_KEY: aws.rootAccessKey,
        CLOUDB_SECRET_KEY: aws.rootSecretKey,
        CLOUDB_REGION: 'ap-south-1',
        CLOUDB_DEFAULT_REGION: 'us-west-2',
      },
    }));
    root = target.root;
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await aws?.stop();
  });

  it('uses CLOUDB_ACCESS_KEY / CLOUDB_SECRET_KEY / CLOUDB_REGION when the payload has none', async () => {
    expect(
      (await root.post(`${mount}/config/root`, { iam_endpoint: aws.url, sts_endpoint: aws.url })).status,
    ).toBe(204);
    const read = (await root.get(`${mount}/config/root`)).body.data;
    expect(read).toMatchObject({ access_key: '', region: '', max_retries: -1 });
    expect((await root.post(`${mount}/roles/fed`, ROLE)).status).toBe(204);
    const before = aws.calls.length;
    expect((await root.get(`${mount}/sts/fed`)).status).toBe(200);
    expect(aws.calls.slice(before)).toEqual([
      expect.objectContaining({
        action: 'GetFederationToken',
        accessKeyId: aws.rootAccessKey,
        region: 'ap-south-1',
      }),
    ]);
  });

  it('the payload wins over the environment', async () => {
    const other = aws.addKey(aws.rootUser);
    aws.expectRegion('eu-central-1');
    const config = {
      access_key: other.accessKeyId,
      secret_key: other.secretAccessKey,
      region: 'eu-central-1',
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
    };
    expect((await root.post(`${mount}/config/root`, config)).status).toBe(204);
    const before = aws.calls.length;
    expect((await root.get(`${mount}/sts/fed`)).status).toBe(200);
    expect(aws.calls.slice(before)).toEqual([
      expect.objectContaining({ accessKeyId: other.accessKeyId, region: 'eu-central-1' }),
    ]);
    aws.expectRegion('ap-south-1');
  });
});

/**
 * Without CLOUDB_* keys the SDK's own chain applies: the shared credentials file, then the task
 * role (AWS_CONTAINER_CREDENTIALS_FULL_URI); the region falls back to CLOUDB_DEFAULT_REGION.
 * Dev mode only: each case needs a process environment of its own.
 */
describe('dev: cloud-b root credentials from the SDK chain', () => {
  let aws: AwsServer;
  let dir: string;
  const targets: Target[] = [];

  beforeAll(async () => {
    aws = await startAwsServer();
    aws.expectRegion('sa-east-1');
    dir = await mkdtemp(path.join(tmpdir(), 'cloud-b-env-'));
  });
  afterAll(async () => {
    for (const t of targets) await t.stop();
    await aws?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const issue = async (env: Record<string, string>) => {
    const { target, mount } = await startCloudBTarget('dev', 'cloud-b-chain', {
      env: {
        AWS_CONFIG_FILE: path.join(dir, 'none'),
        AWS_EC2_METADATA_DISABLED: 'true',
        CLOUDB_DEFAULT_REGION: 'sa-east-1',
        ...env,
      },
    });
    targets.push(target);
    await target.root.post(`${mount}/config/root`, { iam_endpoint: aws.url, sts_endpoint: aws.url });
    await target.root.post(`${mount}/roles/fed`, ROLE);
    const before = aws.calls.length;
    const res = await target.root.get(`${mount}/sts/fed`);
    return { status: res.status, calls: aws.calls.slice(before) };
  };

  it(
    'reads the shared credentials file',
    async () => {
      const key = aws.addKey(aws.rootUser);
      const file = path.join(dir, 'credentials');
      await writeFile(
        file,
        `[default]\naws_access_key_id = ${key.accessKeyId}\naws_secret_access_key = ${key.secretAccessKey}\n`,
      );
      const { status, calls } = await issue({ AWS_SHARED_CREDENTIALS_FILE: file });
      expect(status).toBe(200);
      expect(calls).toEqual([expect.objectContaining({ accessKeyId: key.accessKeyId, region: 'sa-east-1' })]);
    },
    START_TIMEOUT_MS,
  );

  it(
    'falls back to the task role',
    async () => {
      const { status, calls } = await issue({
        AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'),
        AWS_CONTAINER_CREDENTIALS_FULL_URI: aws.containerCredentialsUrl,
      });
      expect(status).toBe(200);
      expect(aws.containerCalls()).toBeGreaterThan(0);
      expect(calls).toEqual([
        expect.objectContaining({ accessKeyId: aws.rootAccessKey, region: 'sa-east-1' }),
      ]);
    },
    START_TIMEOUT_MS,
  );
});
