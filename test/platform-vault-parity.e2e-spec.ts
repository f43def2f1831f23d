import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { waitFor } from '@coffer/testing';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(90_000);

/**
 * Vault details of issue 7's platform over HTTP, dev and cluster: batch tokens from auth
 * methods (and cubbyhole refusing them), the JWT wrapping format and third-party unwrap under the
 * caller's ACL, approle secret ids' wrapped_accessor, audit operations, non-HMAC keys and jsonx.
 */
describe.each(TARGETS)('%s: Vault parity of the platform', (kind) => {
  let target: Target;
  let root: ApiClient;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-parity-'));
    target = await startTarget(kind, { label: 'parity' });
    root = target.root;
    expect((await root.post('sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
    expect((await root.post('sys/auth/approle', { type: 'approle' })).status).toBe(204);
    expect(
      (await root.put('sys/policies/acl/kvonly', { policy: 'path "secret/*" { capabilities = ["read"] }' }))
        .status,
    ).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const as = (token: string) => target.anon.withToken(token);

  it('userpass logs in with a batch token (token_type=batch); cubbyhole refuses it as Vault', async () => {
    const user = uniq('bat');
    expect(
      (
        await root.post(`auth/userpass/users/${user}`, {
          password: 'pw',
          token_type: 'batch',
          token_ttl: '5m',
        })
      ).status,
    ).toBe(204);
    const login = await target.anon.post(`auth/userpass/login/${user}`, { password: 'pw' });
    expect(login.status).toBe(200);
    expect(login.body.auth).toMatchObject({ token_type: 'batch', accessor: '', renewable: false });
    const token = login.body.auth.client_token as string;
    expect(token).toMatch(/^hvb\./);
    expect((await as(token).get('auth/token/lookup-self')).body.data).toMatchObject({ type: 'batch' });
    const cubby = await as(token).post('cubbyhole/x', { a: 'b' });
    expect(cubby.status).toBe(400);
    expect(cubby.body).toEqual({
      errors: ["cubbyhole operations are only supported by 'service' type tokens"],
    });
    expect((await as(token).post('auth/token/renew-self', {})).body).toEqual({
      errors: ['batch tokens cannot be renewed'],
    });
    expect((await as(token).post('auth/token/revoke-self', {})).body).toEqual({
      errors: ['batch tokens cannot be revoked'],
    });
  });

  it('X-Vault-Wrap-Format: jwt wraps in an ES512 JWT that unwraps once', async () => {
    const app = uniq('jwt');
    expect((await root.post(`secret/data/${app}`, { data: { k: 'v' } })).status).toBe(200);
    const wrapped = await root.get(`secret/data/${app}`, {
      headers: { 'x-vault-wrap-ttl': '2m', 'x-vault-wrap-format': 'jwt' },
    });
    expect(wrapped.status).toBe(200);
    const token = wrapped.body.wrap_info.token as string;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES512', typ: 'JWT' });
    expect(decodeJwt(token)).toMatchObject({ type: 'wrapping', jti: expect.stringMatching(/^hvs\./) });
    expect(wrapped.body.wrap_info).toMatchObject({ ttl: 120, creation_path: `secret/data/${app}` });
    const unwrapped = await as(token).post('sys/wrapping/unwrap', {});
    expect(unwrapped.status).toBe(200);
    expect(unwrapped.body.data.data).toEqual({ k: 'v' });
    expect((await as(token).post('sys/wrapping/unwrap', {})).body).toEqual({
      errors: ['wrapping token is not valid or does not exist'],
    });
  });

  it("a third-party unwrap passes the caller's ACL on sys/wrapping/unwrap", async () => {
    const wrapped = await root.post(
      'sys/wrapping/wrap',
      { s: 'x' },
      { headers: { 'x-vault-wrap-ttl': '60' } },
    );
    const wrapToken = wrapped.body.wrap_info.token as string;
    const kvOnly = (await root.post('auth/token/create', { policies: ['kvonly'], no_default_policy: true }))
      .body.auth.client_token as string;
    const denied = await as(kvOnly).post('sys/wrapping/unwrap', { token: wrapToken });
    expect(denied.status).toBe(403);
    // Vault's checkToken denial (a multierror)
    expect(denied.body).toEqual({ errors: ['1 error occurred:\n\t* permission denied\n\n'] });
    const withDefault = (await root.post('auth/token/create', { policies: ['kvonly'] })).body.auth
      .client_token as string;
    const ok = await as(withDefault).post('sys/wrapping/unwrap', { token: wrapToken });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ s: 'x' });
  });

  it('a wrapped approle secret id names its accessor as wrapped_accessor', async () => {
    expect((await root.post('auth/approle/role/wr', { token_policies: 'default' })).status).toBe(204);
    const res = await root.post(
      'auth/approle/role/wr/secret-id',
      {},
      { headers: { 'x-vault-wrap-ttl': '60' } },
    );
    expect(res.status).toBe(200);
    const info = res.body.wrap_info;
    const unwrapped = await as(info.token).post('sys/wrapping/unwrap', {});
    expect(info.wrapped_accessor).toBe(unwrapped.body.data.secret_id_accessor);
  });

  it('audit: create for a new key, non-HMAC keys of the mount left clear, jsonx devices', async () => {
    const json = path.join(dir, `${kind}-audit.log`);
    const xml = path.join(dir, `${kind}-audit.xml`);
    expect(
      (await root.put('sys/audit/jsonfile', { type: 'file', options: { file_path: json } })).status,
    ).toBe(204);
    expect(
      (await root.put('sys/audit/xmlfile', { type: 'file', options: { file_path: xml, format: 'jsonx' } }))
        .status,
    ).toBe(204);
    const refused = await root.put('sys/audit/bad', { type: 'file', options: { file_path: dir } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [`sanity check failed; unable to open "${dir}" for writing: open ${dir}: is a directory`],
    });
    expect(
      (await root.post('sys/mounts/secret/tune', { audit_non_hmac_request_keys: 'visible' })).status,
    ).toBe(204);
    expect((await root.get('sys/mounts/secret/tune')).body.data).toMatchObject({
      audit_non_hmac_request_keys: ['visible'],
    });

    const app = uniq('audited');
    await root.post(`secret/data/${app}`, { data: { x: 1 }, visible: 'clear-text', hidden: 'masked' });
    await root.post(`secret/data/${app}`, { data: { x: 2 } });
    const entries = await waitFor(
      async () => {
        const lines = (await readFile(json, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
        const found = lines
          .map(
            (l) =>
              JSON.parse(l) as { type: string; request: { path: string; operation: string; data?: any } },
          )
          .filter((e) => e.type === 'request' && e.request.path === `secret/data/${app}`);
        return found.length >= 2 ? found : undefined;
      },
      { timeoutMs: 10_000, message: 'the audited writes' },
    );
    expect(entries.map((e) => e.request.operation)).toEqual(['create', 'update']);
    expect(entries[0]?.request.data.visible).toBe('clear-text');
    expect(entries[0]?.request.data.hidden).toMatch(/^hmac-sha256:/);

    const text = await waitFor(
      async () => {
        const t = await readFile(xml, 'utf8').catch(() => '');
        return t.includes(`secret/data/${app}`) ? t : undefined;
      },
      { timeoutMs: 10_000, message: 'the jsonx entries' },
    );
    expect(text).toContain(`<json:string name="path">secret/data/${app}</json:string>`);
    expect(text).toContain('<json:string name="type">request</json:string>');
    expect(text).not.toContain('\n');

    for (const device of ['jsonfile', 'xmlfile'])
      expect((await root.delete(`sys/audit/${device}`)).status).toBe(204);
    await root.post('sys/mounts/secret/tune', { audit_non_hmac_request_keys: '' });
    expect((await root.get('sys/mounts/secret/tune')).body.data).not.toHaveProperty(
      'audit_non_hmac_request_keys',
    );
  });
});
