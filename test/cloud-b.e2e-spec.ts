import { startAwsServer, waitFor, type AwsServer } from '@coffer/testing';
import { START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';
import { startCloudBTarget } from './support/cloud-b-target';

jest.setTimeout(120_000);
const LABEL = 'cloud-b';

/**
 * The cloud-b engine (AWS IAM / STS) driven through the official SDK v3 against a local server
 * speaking the AWS Query protocol (SigV4 checked: key, scope, signature).
 */
describe.each(TARGETS)('%s: cloud-b engine', (kind) => {
  let aws: AwsServer;
  let target: Target;
  let root: ApiClient;
  let mount: string;
  const rootConfig = () => ({
    access_key: aws.rootAccessKey,
    secret_key: aws.rootSecretKey,
    region: 'eu-west-1',
    iam_endpoint: aws.url,
    sts_endpoint: aws.url,
    max_retries: 0,
    request_timeout: 3,
  });

  beforeAll(async () => {
    aws = await startAwsServer();
    aws.expectRegion('eu-west-1');
    aws.addGroup('devs', ['arn:aws:iam::aws:policy/ReadOnlyAccess'], {
      inline1: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:List*","Resource":"*"}]}',
    });
    ({ target, mount } = await startCloudBTarget(kind, LABEL));
    root = target.root;
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await aws?.stop();
  });

  it('keeps the root config without ever reading back the secret key', async () => {
    expect((await root.get(`${mount}/config/root`)).status).toBe(404);
    expect((await root.post(`${mount}/config/root`, rootConfig())).status).toBe(204);
    const read = await root.get(`${mount}/config/root`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      access_key: aws.rootAccessKey,
      region: 'eu-west-1',
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
      max_retries: 0,
      request_timeout: 3,
    });
    expect(read.text).not.toContain(aws.rootSecretKey);
  });

  it('config/lease: both required, Go durations, read back as Go prints them', async () => {
    expect((await root.get(`${mount}/config/lease`)).status).toBe(404);
    const missing = await root.post(`${mount}/config/lease`, { lease_max: '1h' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual(["'lease' is a required parameter"]);
    const noMax = await root.post(`${mount}/config/lease`, { lease: '1h' });
    expect(noMax.body.errors).toEqual(["'lease_max' is a required parameter"]);
    const bad = await root.post(`${mount}/config/lease`, { lease: '1d', lease_max: '2h' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatch(/^Invalid lease: time: unknown unit "d" in duration "1d"/);
    expect((await root.post(`${mount}/config/lease`, { lease: '30m', lease_max: '2h' })).status).toBe(204);
    expect((await root.get(`${mount}/config/lease`)).body.data).toEqual({
      lease: '30m0s',
      lease_max: '2h0m0s',
    });
  });

  it('validates roles with Vault texts', async () => {
    const refuse = async (body: object) => {
      const res = await root.post(`${mount}/roles/bad`, body);
      expect(res.status).toBe(400);
      return res.body.errors[0] as string;
    };
    expect(await refuse({ policy_arns: 'arn:aws:iam::aws:policy/X' })).toContain(
      'did not supply credential_type',
    );
    expect(
      await refuse({ credential_type: 'iam_userx', policy_arns: 'arn:aws:iam::aws:policy/X' }),
    ).toContain('unrecognized credential type: iam_userx');
    expect(await refuse({ credential_type: 'iam_user' })).toContain(
      'at least one of policy_arns or policy_document is required for the iam_user credential type',
    );
    expect(await refuse({ credential_type: 'assumed_role' })).toContain(
      'role_arns is required for the assumed_role credential type',
    );
    expect(
      await refuse({
        credential_type: 'iam_user',
        policy_arns: 'arn:aws:iam::aws:policy/X',
        role_arns: 'arn:aws:iam::1:role/r',
      }),
    ).toContain("cannot supply role_arns when credential_type isn't assumed_role");
    expect(
      await refuse({
        credential_type: 'iam_user',
        policy_arns: 'arn:aws:iam::aws:policy/X',
        default_sts_ttl: 60,
      }),
    ).toContain(
      'default_sts_ttl parameter only valid for assumed_role and federation_token credential types',
    );
    expect(
      await refuse({
        credential_type: 'federation_token',
        policy_arns: 'arn:aws:iam::aws:policy/X',
        default_sts_ttl: 7200,
        max_sts_ttl: 3600,
      }),
    ).toContain('\\"default_sts_ttl\\" value must be less than or equal to \\"max_sts_ttl\\" value');
    expect(
      await refuse({
        credential_type: 'federation_token',
        policy_arns: 'arn:aws:iam::aws:policy/X',
        user_path: '/x/',
      }),
    ).toContain('user_path parameter only valid for iam_user credential type');
    expect(
      await refuse({ credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/X', user_path: 'x' }),
    ).toContain('The specified value for user_path is invalid.');
    expect(
      await refuse({
        credential_type: 'iam_user',
        policy_arns: 'arn:aws:iam::aws:policy/X',
        permissions_boundary_arn: 'nope',
      }),
    ).toContain('unable to parse permissions_boundary_arn \\"nope\\": arn: invalid prefix');
    expect(await refuse({ credential_type: 'iam_user', policy_document: '{not json' })).toBe(
      'cannot parse policy document: "{not json"',
    );
    expect(await refuse({ arn: 'arn:aws:iam::1:role/r', policy: '{}' })).toBe(
      'cannot supply both policy and arn parameters',
    );
    expect(await refuse({ arn: 'arn:aws:iam::1:role/r', credential_type: 'assumed_role' })).toBe(
      'cannot supply deprecated role or policy parameters with an explicit credential_type',
    );
    expect(await refuse({ arn: 'arn:aws:iam::1:group/g' })).toBe(
      'unable to parse supplied data: "arn:aws:iam::1:group/g"',
    );
    expect((await root.get(`${mount}/roles/bad`)).status).toBe(404);
  });

  it('writes, merges, reads, lists and deletes roles (legacy arn and policy included)', async () => {
    expect((await root.list(`${mount}/roles`)).status).toBe(404);
    const body = {
      credential_type: 'iam_user',
      policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess, arn:aws:iam::aws:policy/Billing',
      policy_document:
        '{ "Version": "2012-10-17", "Statement": [ {"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"} ] }',
      iam_groups: ['devs'],
      iam_tags: ['team=blue', 'env=test'],
      user_path: '/coffer/',
      permissions_boundary_arn: 'arn:aws:iam::123456789012:policy/boundary',
    };
    expect((await root.post(`${mount}/roles/deploy`, body)).status).toBe(204);
    const read = await root.get(`${mount}/roles/deploy`);
    expect(read.body.data).toEqual({
      credential_type: 'iam_user',
      credential_types: ['iam_user'],
      policy_arns: ['arn:aws:iam::aws:policy/ReadOnlyAccess', 'arn:aws:iam::aws:policy/Billing'],
      role_arns: null,
      policy_document:
        '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}',
      iam_groups: ['devs'],
      iam_tags: { team: 'blue', env: 'test' },
      default_sts_ttl: 0,
      max_sts_ttl: 0,
      user_path: '/coffer/',
      permissions_boundary_arn: 'arn:aws:iam::123456789012:policy/boundary',
    });
    // a write keeps what it does not send; a map of tags works too
    expect((await root.post(`${mount}/roles/deploy`, { iam_tags: { team: 'red' } })).status).toBe(204);
    const merged = (await root.get(`${mount}/roles/deploy`)).body.data;
    expect(merged.iam_tags).toEqual({ team: 'red' });
    expect(merged.iam_groups).toEqual(['devs']);

    expect(
      (await root.post(`${mount}/roles/legacy-arn`, { arn: 'arn:aws:iam::123456789012:role/ops' })).status,
    ).toBe(204);
    expect((await root.get(`${mount}/roles/legacy-arn`)).body.data).toMatchObject({
      credential_types: ['assumed_role'],
      role_arns: ['arn:aws:iam::123456789012:role/ops'],
    });
    expect(
      (await root.post(`${mount}/roles/legacy-policy`, { policy: '{"Version": "2012-10-17"}' })).status,
    ).toBe(204);
    expect((await root.get(`${mount}/roles/legacy-policy`)).body.data).toMatchObject({
      credential_type: 'iam_user,federation_token',
      policy_document: '{"Version":"2012-10-17"}',
    });
    expect((await root.list(`${mount}/roles`)).body.data.keys).toEqual([
      'deploy',
      'legacy-arn',
      'legacy-policy',
    ]);
    expect((await root.delete(`${mount}/roles/legacy-arn`)).status).toBe(204);
    expect((await root.delete(`${mount}/roles/legacy-arn`)).status).toBe(404);
    expect((await root.get(`${mount}/roles/legacy-arn`)).status).toBe(404);
  });

  it('creds for iam_user: a user with policies, groups, tags, path and boundary; revocation removes it all', async () => {
    const before = aws.calls.length;
    const res = await root.get(`${mount}/creds/deploy`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.security_token).toBeNull();
    expect(res.body.lease_id).toMatch(new RegExp(`^${mount}/creds/deploy/`));
    expect(res.body.renewable).toBe(true);
    expect(res.body.lease_duration).toBe(1800);
    const users = aws.createdUsers();
    expect(users).toHaveLength(1);
    const user = users[0]!;
    expect(user.name).toMatch(/^vault-root-deploy-\d{10}-[A-Za-z0-9]{12}$/);
    expect(user.name.length).toBeLessThanOrEqual(64);
    expect(data.arn).toBe(user.arn);
    expect(user.path).toBe('/coffer/');
    expect(user.boundary).toBe('arn:aws:iam::123456789012:policy/boundary');
    expect(user.tags).toEqual({ team: 'red' });
    expect([...user.attached]).toEqual([
      'arn:aws:iam::aws:policy/ReadOnlyAccess',
      'arn:aws:iam::aws:policy/Billing',
    ]);
    expect([...user.inline.keys()]).toEqual(['deploy']);
    expect([...user.groups]).toEqual(['devs']);
    expect([...user.keys.keys()]).toEqual([data.access_key]);
    expect(user.keys.get(data.access_key)).toBe(data.secret_key);
    // every call signed with the root key, scoped to the configured region
    const mine = aws.calls.slice(before);
    expect(mine.every((c) => c.accessKeyId === aws.rootAccessKey && c.region === 'eu-west-1')).toBe(true);
    expect(aws.refusals).toEqual([]);

    const renewed = await root.put('sys/leases/renew', { lease_id: res.body.lease_id });
    expect(renewed.status).toBe(200);
    expect((await root.put('sys/leases/revoke', { lease_id: res.body.lease_id })).status).toBe(204);
    await waitFor(() => aws.createdUsers().length === 0, { timeoutMs: 10_000 });
    expect(aws.users.has(user.name)).toBe(false);
  });

  it('assumed_role: role_arn choice, ttl rules, session names, a non-renewable lease', async () => {
    const arns = ['arn:aws:iam::123456789012:role/ops', 'arn:aws:iam::123456789012:role/dev'];
    expect(
      (
        await root.post(`${mount}/roles/ops`, {
          credential_type: 'assumed_role',
          role_arns: arns,
          default_sts_ttl: '20m',
          max_sts_ttl: '2h',
          policy_document: '{"Version":"2012-10-17","Statement":[]}',
        })
      ).status,
    ).toBe(204);
    const noArn = await root.get(`${mount}/sts/ops`);
    expect(noArn.status).toBe(400);
    expect(noArn.body.errors).toEqual(['did not supply a role_arn parameter and unable to determine one']);
    const wrong = await root.post(`${mount}/sts/ops`, { role_arn: 'arn:aws:iam::123456789012:role/other' });
    expect(wrong.body.errors).toEqual([
      'role_arn "arn:aws:iam::123456789012:role/other" not in allowed role arns for Vault role "ops"',
    ]);

    const res = await root.post(`${mount}/sts/ops`, { role_arn: arns[1] });
    expect(res.status).toBe(200);
    expect(res.body.renewable).toBe(false);
    expect(res.body.lease_duration).toBeGreaterThan(1190);
    expect(res.body.lease_duration).toBeLessThanOrEqual(1200);
    expect(res.body.data.security_token).toEqual(expect.any(String));
    const call = aws.calls.filter((c) => c.action === 'AssumeRole').pop()!;
    expect(call.service).toBe('sts');
    expect(call.params).toMatchObject({ RoleArn: arns[1], DurationSeconds: '1200' });
    expect(call.params['RoleSessionName']).toMatch(/^vault-root-ops-\d{10}-/);
    expect(res.body.data.arn).toBe(
      `arn:aws:sts::123456789012:assumed-role/dev/${call.params['RoleSessionName']}`,
    );

    // ttl asked for, capped by max_sts_ttl; a long session name is cut to 64 characters
    const long = 'x'.repeat(80);
    const capped = await root.get(
      `${mount}/creds/ops?role_arn=${encodeURIComponent(arns[0]!)}&ttl=5h&role_session_name=${long}`,
    );
    expect(capped.status).toBe(200);
    expect(capped.body.warnings).toEqual([
      'the role session name was truncated to 64 characters to fit within IAM session name length limits',
    ]);
    const second = aws.calls.filter((c) => c.action === 'AssumeRole').pop()!;
    expect(second.params).toMatchObject({ DurationSeconds: '7200', RoleSessionName: 'x'.repeat(64) });
    // STS leases are not revoked in AWS: revocation just ends them
    expect((await root.put('sys/leases/revoke', { lease_id: capped.body.lease_id })).status).toBe(204);
  });

  it('federation_token: the role and group policies, default ttl 3600s', async () => {
    expect(
      (
        await root.post(`${mount}/roles/fed`, {
          credential_type: 'federation_token',
          policy_arns: ['arn:aws:iam::aws:policy/Billing'],
          policy_document:
            '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:*","Resource":"*"}]}',
          iam_groups: 'devs',
        })
      ).status,
    ).toBe(204);
    const res = await root.get(`${mount}/sts/fed`);
    expect(res.status).toBe(200);
    expect(res.body.lease_duration).toBeGreaterThan(3590);
    const call = aws.calls.filter((c) => c.action === 'GetFederationToken').pop()!;
    expect(call.params['DurationSeconds']).toBe('3600');
    expect(call.params['Name']).toMatch(/^vault-\d{10}-[A-Za-z0-9]+$/);
    expect(call.params['Name']!.length).toBe(32);
    expect([call.params['PolicyArns.member.1.arn'], call.params['PolicyArns.member.2.arn']]).toEqual([
      'arn:aws:iam::aws:policy/Billing',
      'arn:aws:iam::aws:policy/ReadOnlyAccess',
    ]);
    expect(JSON.parse(call.params['Policy']!).Statement).toHaveLength(2);
    expect(res.body.data.arn).toBe(`arn:aws:sts::123456789012:federated-user/${call.params['Name']}`);
  });

  it('legacy roles: creds/ serves iam_user, sts/ the STS types', async () => {
    const viaSts = await root.get(`${mount}/sts/legacy-policy`);
    expect(viaSts.status).toBe(200);
    expect(aws.calls.filter((c) => c.action === 'GetFederationToken').pop()!.params['Policy']).toBe(
      '{"Version":"2012-10-17"}',
    );
    const viaCreds = await root.get(`${mount}/creds/legacy-policy`);
    expect(viaCreds.status).toBe(200);
    expect(viaCreds.body.data.security_token).toBeNull();
    expect((await root.put('sys/leases/revoke', { lease_id: viaCreds.body.lease_id })).status).toBe(204);
    // written again after its delete
    expect(
      (await root.post(`${mount}/roles/legacy-arn`, { arn: 'arn:aws:iam::123456789012:role/ops' })).status,
    ).toBe(204);
    const refused = await root.get(`${mount}/creds/legacy-arn`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'attempted to retrieve assumed_role credentials through the creds path; this is not allowed for legacy roles',
    ]);
    expect((await root.get(`${mount}/sts/legacy-arn`)).status).toBe(200);
    const unknown = await root.get(`${mount}/creds/nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual(['Role "nope" not found']);
    await waitFor(() => aws.createdUsers().length === 0, { timeoutMs: 10_000 });
  });

  it('an IAM error is a 502 with its text, and nothing created is left behind', async () => {
    aws.failNext('PutUserPolicy', {
      status: 400,
      code: 'MalformedPolicyDocument',
      message: 'Policy is bad.',
    });
    const res = await root.get(`${mount}/creds/deploy`);
    expect(res.status).toBe(502);
    expect(res.body.errors).toEqual(['Error putting user policy: MalformedPolicyDocument: Policy is bad.']);
    expect(aws.createdUsers()).toEqual([]);
  });

  it('a silent IAM times out per request_timeout (502) and the half-made user is removed', async () => {
    const release = aws.hang('CreateAccessKey');
    const started = Date.now();
    const res = await root.get(`${mount}/creds/deploy`);
    expect(res.status).toBe(502);
    expect(res.body.errors[0]).toMatch(/^Error creating access keys: /);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(aws.createdUsers()).toEqual([]);
    release();
  });

  it('IAM down: 502, no lease', async () => {
    const down = `${mount}-down`;
    await root.post(`sys/mounts/${down}`, { type: 'cloud-b' });
    await root.post(`${down}/config/root`, {
      ...rootConfig(),
      iam_endpoint: 'http://127.0.0.1:1',
      sts_endpoint: 'http://127.0.0.1:1',
    });
    await root.post(`${down}/roles/r`, {
      credential_type: 'iam_user',
      policy_arns: 'arn:aws:iam::aws:policy/X',
    });
    const res = await root.get(`${down}/creds/r`);
    expect(res.status).toBe(502);
    expect(res.body.errors[0]).toMatch(/^Error creating IAM user: .*ECONNREFUSED/);
    expect(res.body.lease_id ?? '').toBe('');
  });

  it('revocation is retried until IAM lets it through', async () => {
    const res = await root.get(`${mount}/creds/deploy`);
    expect(res.status).toBe(200);
    aws.failNext('DeleteUser', { status: 500, code: 'ServiceFailure', message: 'try later' }, 2);
    // revoking by hand fails while IAM fails, and the lease stays
    const first = await root.put('sys/leases/revoke', { lease_id: res.body.lease_id });
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(aws.createdUsers()).toHaveLength(1);
    const second = await root.put('sys/leases/revoke', { lease_id: res.body.lease_id });
    expect(second.status).toBeGreaterThanOrEqual(400);
    expect((await root.put('sys/leases/revoke', { lease_id: res.body.lease_id })).status).toBe(204);
    expect(aws.createdUsers()).toEqual([]);
  });

  it('a lease whose user IAM never lets go expires, is retried with back-off, then shows as irrevocable', async () => {
    const short = `${mount}-short`;
    expect((await root.post(`sys/mounts/${short}`, { type: 'cloud-b' })).status).toBe(204);
    await root.post(`${short}/config/root`, rootConfig());
    await root.post(`${short}/config/lease`, { lease: '1s', lease_max: '1s' });
    await root.post(`${short}/roles/r`, {
      credential_type: 'iam_user',
      policy_arns: 'arn:aws:iam::aws:policy/X',
    });
    aws.failNext('DeleteUser', { status: 500, code: 'ServiceFailure', message: 'IAM is broken' }, 1000);
    const res = await root.get(`${short}/creds/r`);
    expect(res.status).toBe(200);
    expect(res.body.lease_duration).toBe(1);
    const stuck = await waitFor(
      async () => {
        const list = await root.get('sys/leases?type=irrevocable');
        const leases = (list.body.data?.leases ?? []) as { lease_id: string; error: string }[];
        return leases.find((l) => l.lease_id === res.body.lease_id);
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(stuck.error).toContain('IAM is broken');
    // every attempt reached IAM; the user stays (nothing else was half-removed silently)
    expect(aws.calls.filter((c) => c.action === 'DeleteUser').length).toBeGreaterThanOrEqual(2);
    aws.failNext('DeleteUser', { status: 500, code: 'ServiceFailure', message: '' }, 0);
    expect((await root.put('sys/leases/revoke-force/' + short, {})).status).toBeLessThan(300);
  }, 180_000);

  it('rotate-root: a new key, the old deleted; refused while the user has another key', async () => {
    const oldKey = aws.rootAccessKey;
    const res = await root.post(`${mount}/config/rotate-root`, {});
    expect(res.status).toBe(200);
    const newKey: string = res.body.data.access_key;
    expect(newKey).not.toBe(oldKey);
    const rootUser = aws.users.get(aws.rootUser)!;
    expect([...rootUser.keys.keys()]).toEqual([newKey]);
    expect((await root.get(`${mount}/config/root`)).body.data.access_key).toBe(newKey);
    // later calls are signed with the new key
    const before = aws.calls.length;
    expect((await root.get(`${mount}/sts/fed`)).status).toBe(200);
    expect(aws.calls.slice(before).every((c) => c.accessKeyId === newKey)).toBe(true);

    aws.addKey(aws.rootUser);
    const refused = await root.post(`${mount}/config/rotate-root`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/has another access key/);
    expect(rootUser.keys.size).toBe(2);
  });
});
