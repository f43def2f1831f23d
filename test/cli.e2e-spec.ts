import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@coffer/testing';
import {
  cliRunner,
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  type ApiClient,
  type CliRunner,
} from './support';

jest.setTimeout(180_000);

interface Running {
  baseUrl: string;
  rootToken: string;
  root: ApiClient;
  unsealKeys: string[];
  /** cluster only: one more core-sys replica (an HA standby) */
  addCoreSys?: () => Promise<unknown>;
  stop(): Promise<unknown>;
}

/** A dev server or a cluster with a plugin directory (for `plugin register`). */
async function start(kind: 'dev' | 'cluster', pluginDirectory: string): Promise<Running> {
  if (kind === 'dev') {
    const dev = await startDevServer({ COFFER_PLUGIN_DIRECTORY: pluginDirectory });
    return {
      baseUrl: dev.baseUrl,
      rootToken: dev.rootToken,
      root: dev.client,
      unsealKeys: [dev.unsealKey],
      stop: () => dev.stop(),
    };
  }
  const cluster = await startCluster({ label: 'cli', pluginDirectory });
  return {
    baseUrl: cluster.baseUrl,
    rootToken: cluster.rootToken,
    root: cluster.client,
    unsealKeys: cluster.unsealKeys,
    addCoreSys: () => cluster.addReplica('core-sys'),
    stop: () => cluster.stop(),
  };
}

/**
 * The `coffer` binary as a subprocess against a dev server and a cluster: every command in table
 * and JSON output, exit codes, the token helper, wrap/unwrap.
 */
describe.each(TARGETS)('%s: the coffer CLI', (kind) => {
  let server: Running;
  let cli: CliRunner;
  let pluginDir: string;
  /** runs as root through COFFER_TOKEN */
  let asRoot: { env: Record<string, string> };

  beforeAll(async () => {
    pluginDir = mkdtempSync(path.join(tmpdir(), 'coffer-cli-plugins-'));
    server = await start(kind, pluginDir);
    cli = cliRunner(server.baseUrl);
    asRoot = { env: { COFFER_TOKEN: server.rootToken } };
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    cli?.cleanup();
    rmSync(pluginDir, { recursive: true, force: true });
  });

  describe('status and exit codes', () => {
    it('status prints the seal status table, or the raw body as JSON', async () => {
      const table = await cli.ok(['status']);
      expect(table).toMatch(/^Key\s+Value\n---\s+-----\n/);
      expect(table).toMatch(/^Sealed\s+false$/m);
      expect(table).toMatch(/^Initialized\s+true$/m);
      const raw = (await server.root.get('sys/seal-status')).body;
      const json = await cli.json(['status']);
      expect(Object.keys(json).sort()).toEqual(Object.keys(raw).sort());
      expect(json).toMatchObject({ sealed: false, initialized: true, type: 'shamir' });
      const yaml = await cli.ok(['status', '-format=yaml']);
      expect(yaml).toMatch(/^sealed: false$/m);
    });

    it('exits 2 on usage errors, 1 on local errors, 2 on server errors, with hints', async () => {
      const unknown = await cli.run(['frobnicate']);
      expect(unknown.code).toBe(2);
      const missing = await cli.run(['kv', 'get']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("missing required argument 'path'");
      const tooMany = await cli.run(['token', 'lookup', 'a', 'b'], asRoot);
      expect(tooMany).toMatchObject({ code: 2 });
      expect(tooMany.stderr).toMatch(/too many arguments/i);
      const badFormat = await cli.run(['status', '-format=xml']);
      expect(badFormat.code).toBe(2);

      const noFile = await cli.run(['policy', 'write', 'p', '/nonexistent/policy.hcl'], asRoot);
      expect(noFile.code).toBe(1);
      expect(noFile.stderr).toContain('/nonexistent/policy.hcl');

      const denied = await cli.run(['read', 'secret/data/anything'], { env: { COFFER_TOKEN: undefined } });
      expect(denied.code).toBe(2);
      expect(denied.stderr).toContain('Code: 403');
      expect(denied.stderr).toContain('permission denied');
      expect(denied.stderr).toContain('Hint:');

      const badToken = await cli.run(['token', 'lookup'], { env: { COFFER_TOKEN: 'hvs.not-a-token' } });
      expect(badToken.code).toBe(2);
      expect(badToken.stderr).toMatch(/Hint: Your token is invalid or expired/);

      const unsupported = await cli.run(['read', 'nosuchmount/x'], asRoot);
      expect(unsupported.code).toBe(2);
      expect(unsupported.stderr).toMatch(/unsupported path|no handler for route/);
      expect(unsupported.stderr).toMatch(/Hint: No secrets engine or auth method is mounted/);

      const refused = await cli.run(['status', '-address=http://127.0.0.1:1']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/Hint: Is the server running at this address\?/);
    });

    it('-output-curl-string prints the request instead of sending it, without the token', async () => {
      const res = await cli.run(['kv', 'put', '-output-curl-string', 'secret/curl', 'a=b'], asRoot);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^curl -X GET .*\/v1\/sys\/internal\/ui\/mounts\/secret\/curl'\n$/);
      const write = await cli.run(['write', '-output-curl-string', 'secret/data/x', 'a=b'], asRoot);
      expect(write.stdout).toContain(`curl -X PUT`);
      expect(write.stdout).toContain(`-d '{"a":"b"}'`);
      expect(write.stdout).toContain('"X-Service-Token: $(coffer print token)"');
      expect(write.stdout).not.toContain(server.rootToken);
      expect((await server.root.get('secret/data/x')).status).toBe(404);
    });

    it('pipes get no colours and no spinner', async () => {
      const res = await cli.run(['kv', 'get', 'secret/none'], asRoot);
      expect(res.stderr).not.toContain('\u001b[');
      expect(res.stdout).not.toContain('\u001b[');
    });
  });

  describe('login and the token helper', () => {
    it('login with a token validates it, stores it 0600 in ~/.coffer-token, and later commands use it', async () => {
      const res = await cli.run(['login', server.rootToken]);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('Success! You are now authenticated.');
      expect(res.stdout).toMatch(/^token_policies\s+\[root\]$/m);
      expect(readFileSync(cli.tokenFile, 'utf8')).toBe(server.rootToken);
      expect(statSync(cli.tokenFile).mode & 0o777).toBe(0o600);
      const lookup = await cli.json(['token', 'lookup']);
      expect(lookup.data.policies).toEqual(['root']);
      expect((await cli.ok(['print', 'token'])).trim()).toBe(server.rootToken);
    });

    it('a bad token is refused and not stored; COFFER_TOKEN and VAULT_TOKEN take precedence', async () => {
      const bad = await cli.run(['login', 'hvs.bogus']);
      expect(bad.code).toBe(2);
      expect(readFileSync(cli.tokenFile, 'utf8')).toBe(server.rootToken);
      const child = (await server.root.post('auth/token/create', { policies: ['default'] })).body.auth
        .client_token;
      const viaEnv = await cli.json(['token', 'lookup'], { env: { COFFER_TOKEN: child } });
      expect(viaEnv.data.policies).toEqual(['default']);
      const viaVault = await cli.json(['token', 'lookup'], { env: { VAULT_TOKEN: child } });
      expect(viaVault.data.policies).toEqual(['default']);
      const warned = await cli.run(['login', server.rootToken], { env: { COFFER_TOKEN: child } });
      expect(warned.stderr).toContain('WARNING! The COFFER_TOKEN');
    });

    it('login -method=userpass and -method=approle with arguments; -no-store, -token-only', async () => {
      const user = uniq('bob');
      await cli.ok(['auth', 'enable', 'userpass'], asRoot).catch(() => undefined);
      await cli.ok(['write', `auth/userpass/users/${user}`, 'password=s3cret', 'policies=default'], asRoot);
      const json = await cli.json([
        'login',
        '-method=userpass',
        '-no-store',
        `username=${user}`,
        'password=s3cret',
      ]);
      expect(json.auth.policies).toEqual(['default']);
      expect(readFileSync(cli.tokenFile, 'utf8')).toBe(server.rootToken);
      const wrong = await cli.run(['login', '-method=userpass', `username=${user}`, 'password=nope']);
      expect(wrong.code).toBe(2);

      await cli.ok(['auth', 'enable', '-path=ar', 'approle'], asRoot);
      await cli.ok(['write', 'auth/ar/role/cli', 'token_policies=default'], asRoot);
      const roleId = (await cli.ok(['read', '-field=role_id', 'auth/ar/role/cli/role-id'], asRoot)).trim();
      const secretId = (
        await cli.ok(['write', '-f', '-field=secret_id', 'auth/ar/role/cli/secret-id'], asRoot)
      ).trim();
      const token = await cli.ok([
        'login',
        '-method=approle',
        '-path=ar',
        '-token-only',
        '-no-store',
        `role_id=${roleId}`,
        `secret_id=${secretId}`,
      ]);
      expect(token).toMatch(/^hvs\./);
      const looked = await server.root.post('auth/token/lookup', { token });
      expect(looked.body.data.path).toBe('auth/ar/login');
    });

    it('a password piped on standard input is read when not given as an argument', async () => {
      const user = uniq('piped');
      await cli.ok(['write', `auth/userpass/users/${user}`, 'password=from-stdin'], asRoot);
      const res = await cli.run(
        ['login', '-method=userpass', '-no-store', '-format=json', `username=${user}`],
        {
          input: 'from-stdin\n',
        },
      );
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).auth.client_token).toMatch(/^hvs\./);
      expect(res.stderr).toContain('Password (will be hidden):');
    });
  });

  describe('kv', () => {
    it('put, get, patch, list and -field on a kv v2 mount, in table and JSON', async () => {
      const app = uniq('app');
      const put = await cli.ok(['kv', 'put', `secret/${app}`, 'user=admin', 'pass=hunter2'], asRoot);
      expect(put).toContain('== Secret Path ==');
      expect(put).toContain(`secret/data/${app}`);
      expect(put).toMatch(/^version\s+1$/m);
      const got = await cli.ok(['kv', 'get', `secret/${app}`], asRoot);
      expect(got).toMatch(/=+ Data =+\nKey\s+Value\n---\s+-----\npass\s+hunter2\nuser\s+admin/);
      const raw = (await server.root.get(`secret/data/${app}`)).body;
      const json = await cli.json(['kv', 'get', `secret/${app}`], asRoot);
      expect({ ...json, request_id: '' }).toEqual({ ...raw, request_id: '' });
      expect(await cli.ok(['kv', 'get', '-field=pass', `secret/${app}`], asRoot)).toBe('hunter2');

      const patched = await cli.json(['kv', 'patch', `secret/${app}`, 'pass=changed'], asRoot);
      expect(patched.data.version).toBe(2);
      const rw = await cli.json(['kv', 'patch', '-method=rw', `secret/${app}`, 'extra=1'], asRoot);
      expect(rw.data.version).toBe(3);
      const v3 = await cli.json(['kv', 'get', '-mount=secret', app], asRoot);
      expect(v3.data.data).toEqual({ user: 'admin', pass: 'changed', extra: '1' });
      const v1 = await cli.json(['kv', 'get', '-version=1', `secret/${app}`], asRoot);
      expect(v1.data.data).toEqual({ user: 'admin', pass: 'hunter2' });

      await cli.ok(['kv', 'put', `secret/${app}/child`, 'x=1'], asRoot);
      expect(await cli.ok(['kv', 'list', 'secret'], asRoot)).toMatch(
        new RegExp(`^Keys\\n----\\n(.*\\n)*${app}\\n`),
      );
      expect(await cli.json(['kv', 'list', `secret/${app}`], asRoot)).toEqual(['child']);
      const none = await cli.run(['kv', 'get', `secret/${app}-missing`], asRoot);
      expect(none).toMatchObject({ code: 2 });
      expect(none.stderr).toContain(`No value found at secret/data/${app}-missing`);
    });

    it('check-and-set, delete, undelete, destroy, rollback and metadata', async () => {
      const app = uniq('versions');
      await cli.ok(['kv', 'put', '-cas=0', `secret/${app}`, 'v=1'], asRoot);
      const conflict = await cli.run(['kv', 'put', '-cas=0', `secret/${app}`, 'v=x'], asRoot);
      expect(conflict.code).toBe(2);
      expect(conflict.stderr).toContain('check-and-set');
      await cli.ok(['kv', 'put', '-cas=1', `secret/${app}`, 'v=2'], asRoot);
      await cli.ok(['kv', 'put', `secret/${app}`, 'v=3'], asRoot);

      expect(await cli.ok(['kv', 'delete', `secret/${app}`], asRoot)).toContain(
        `Success! Data deleted (if it existed) at: secret/data/${app}`,
      );
      const deleted = await cli.run(['kv', 'get', `secret/${app}`], asRoot);
      expect(deleted.code).toBe(2);
      expect(deleted.stdout).toMatch(/^deletion_time\s+\d{4}-/m);
      await cli.ok(['kv', 'undelete', '-versions=3', `secret/${app}`], asRoot);
      expect(await cli.ok(['kv', 'get', '-field=v', `secret/${app}`], asRoot)).toBe('3');
      await cli.ok(['kv', 'delete', '-versions=2', `secret/${app}`], asRoot);
      await cli.ok(['kv', 'destroy', '-versions=1', `secret/${app}`], asRoot);

      const meta = await cli.ok(['kv', 'metadata', 'get', `secret/${app}`], asRoot);
      expect(meta).toContain(`secret/metadata/${app}`);
      expect(meta).toMatch(
        /=+ Version 1 =+\nKey\s+Value\n---\s+-----\ncreated_time\s+\S+\ndeletion_time\s*\ndestroyed\s+true/,
      );
      expect(meta).toMatch(/^current_version\s+3$/m);
      const metaJson = await cli.json(['kv', 'metadata', 'get', `secret/${app}`], asRoot);
      expect(metaJson.data.versions['1'].destroyed).toBe(true);

      await cli.ok(['kv', 'undelete', '-versions=2', `secret/${app}`], asRoot);
      const rolled = await cli.json(['kv', 'rollback', '-version=2', `secret/${app}`], asRoot);
      expect(rolled.data.version).toBe(4);
      expect(await cli.ok(['kv', 'get', '-field=v', `secret/${app}`], asRoot)).toBe('2');
      const gone = await cli.run(['kv', 'rollback', '-version=1', `secret/${app}`], asRoot);
      expect(gone.code).toBe(2);

      await cli.ok(
        [
          'kv',
          'metadata',
          'put',
          '-max-versions=7',
          '-custom-metadata=owner=ops',
          '-cas-required=true',
          `secret/${app}`,
        ],
        asRoot,
      );
      const after = await cli.json(['kv', 'metadata', 'get', `secret/${app}`], asRoot);
      expect(after.data).toMatchObject({
        max_versions: 7,
        cas_required: true,
        custom_metadata: { owner: 'ops' },
      });
      expect(await cli.ok(['kv', 'metadata', 'delete', `secret/${app}`], asRoot)).toContain('Success!');
      expect((await cli.run(['kv', 'metadata', 'get', `secret/${app}`], asRoot)).code).toBe(2);
    });

    it('detects a kv v1 mount and uses its paths; v2-only commands explain themselves', async () => {
      const mount = uniq('kvone');
      expect(await cli.ok(['secrets', 'enable', `-path=${mount}`, '-version=1', 'kv'], asRoot)).toContain(
        `Success! Enabled the kv secrets engine at: ${mount}/`,
      );
      expect(await cli.ok(['kv', 'put', `${mount}/db`, 'password=pw'], asRoot)).toContain(
        `Success! Data written to: ${mount}/db`,
      );
      expect((await server.root.get(`${mount}/db`)).body.data).toEqual({ password: 'pw' });
      const table = await cli.ok(['kv', 'get', `${mount}/db`], asRoot);
      expect(table).toMatch(/^password\s+pw$/m);
      expect((await cli.json(['kv', 'get', `-mount=${mount}`, 'db'], asRoot)).data).toEqual({
        password: 'pw',
      });
      expect(await cli.json(['kv', 'list', `${mount}/`], asRoot)).toEqual(['db']);
      const patch = await cli.run(['kv', 'patch', `${mount}/db`, 'a=b'], asRoot);
      expect(patch.code).toBe(2);
      expect(patch.stderr).toContain('version 2');
      await cli.ok(['kv', 'delete', `${mount}/db`], asRoot);
      expect((await server.root.get(`${mount}/db`)).status).toBe(404);
    });
  });

  describe('generic read, write, list, patch, delete', () => {
    it('works on any path, with @file and - (stdin) values', async () => {
      const app = uniq('generic');
      const file = path.join(cli.home, 'value.txt');
      writeFileSync(file, 'from-a-file');
      const written = await cli
        .json(['write', `secret/data/${app}`, 'data=-'], {
          ...asRoot,
          input: '',
        })
        .catch(() => undefined);
      expect(written).toBeUndefined(); // data=- is a string, kv v2 wants an object: a 400
      const ok = await cli.run(['write', `secret/data/${app}`, '-'], {
        ...asRoot,
        input: JSON.stringify({ data: { a: 'x' } }),
      });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^version\s+1$/m);
      await cli.ok(['write', `cubbyhole/${app}`, `note=@${file}`, 'n=1'], asRoot);
      expect(await cli.ok(['read', '-field=note', `cubbyhole/${app}`], asRoot)).toBe('from-a-file');
      expect(await cli.ok(['read', `cubbyhole/${app}`], asRoot)).toMatch(/^note\s+from-a-file$/m);
      expect(await cli.ok(['list', 'cubbyhole'], asRoot)).toMatch(new RegExp(`^${app}$`, 'm'));
      expect(await cli.json(['list', 'cubbyhole/'], asRoot)).toContain(app);
      const patched = await cli.run(['patch', `secret/data/${app}`, 'data=x'], asRoot);
      expect(patched.code).toBe(2); // a merge patch of data must be an object
      const patchOk = await cli.run(['patch', `secret/data/${app}`, '-'], {
        ...asRoot,
        input: JSON.stringify({ data: { b: 'y' } }),
      });
      expect(patchOk.code).toBe(0);
      expect((await server.root.get(`secret/data/${app}`)).body.data.data).toEqual({ a: 'x', b: 'y' });
      expect(await cli.ok(['delete', `cubbyhole/${app}`], asRoot)).toContain(
        `Success! Data deleted (if it existed) at: cubbyhole/${app}`,
      );
      const gone = await cli.run(['read', `cubbyhole/${app}`], asRoot);
      expect(gone).toMatchObject({ code: 2 });
      expect(gone.stderr).toContain(`No value found at cubbyhole/${app}`);
      const empty = await cli.run(['write', `cubbyhole/${app}`], asRoot);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('Must supply data or use -force');
      expect(await cli.json(['read', 'sys/policies/acl/default'], asRoot)).toMatchObject({
        data: { name: 'default' },
      });
    });
  });

  describe('policies and tokens', () => {
    it('policy write, read, list, fmt, delete', async () => {
      const name = uniq('pol');
      const file = path.join(cli.home, `${name}.hcl`);
      writeFileSync(file, 'path "secret/data/team/*" {capabilities=["read","list"]}\n');
      expect(await cli.ok(['policy', 'fmt', file])).toContain('Success! Formatted policy');
      expect(readFileSync(file, 'utf8')).toBe(
        'path "secret/data/team/*" {\n  capabilities = ["read", "list"]\n}\n',
      );
      writeFileSync(path.join(cli.home, 'broken.hcl'), 'path "x" {');
      expect((await cli.run(['policy', 'fmt', path.join(cli.home, 'broken.hcl')])).code).toBe(1);
      expect(await cli.ok(['policy', 'write', name, file], asRoot)).toContain(
        `Success! Uploaded policy: ${name}`,
      );
      expect(await cli.ok(['policy', 'read', name], asRoot)).toBe(readFileSync(file, 'utf8'));
      expect((await cli.json(['policy', 'read', name], asRoot)).data.policy).toBe(readFileSync(file, 'utf8'));
      expect((await cli.ok(['policy', 'list'], asRoot)).split('\n')).toContain(name);
      expect(await cli.json(['policy', 'list'], asRoot)).toContain(name);
      const stdin = await cli.run(['policy', 'write', `${name}-stdin`, '-'], {
        ...asRoot,
        input: 'path "a/*" { capabilities = ["read"] }',
      });
      expect(stdin.code).toBe(0);
      expect(await cli.ok(['policy', 'delete', `${name}-stdin`], asRoot)).toContain(
        'Success! Deleted policy',
      );
    });

    it('token create, lookup, capabilities, renew, revoke (also by accessor)', async () => {
      const name = uniq('tokpol');
      await server.root.put(`sys/policies/acl/${name}`, {
        policy: 'path "secret/data/t/*" { capabilities = ["read"] }',
      });
      const table = await cli.ok(
        ['token', 'create', `-policy=${name}`, '-ttl=1h', '-metadata=team=ops'],
        asRoot,
      );
      expect(table).toMatch(/^token\s+hvs\.\S+$/m);
      expect(table).toMatch(/^token_duration\s+1h$/m);
      expect(table).toMatch(new RegExp(`^token_policies\\s+\\[default ${name}\\]$`, 'm'));
      expect(table).toMatch(/^token_meta_team\s+ops$/m);
      const created = await cli.json(
        ['token', 'create', `-policy=${name}`, '-ttl=1h', '-renewable=true'],
        asRoot,
      );
      const token: string = created.auth.client_token;
      const accessor: string = created.auth.accessor;

      const lookup = await cli.ok(['token', 'lookup', token], asRoot);
      expect(lookup).toMatch(/^creation_ttl\s+1h$/m);
      expect(lookup).toMatch(new RegExp(`^policies\\s+\\[default ${name}\\]$`, 'm'));
      expect((await cli.json(['token', 'lookup', '-accessor', accessor], asRoot)).data.accessor).toBe(
        accessor,
      );
      expect((await cli.json(['token', 'lookup'], { env: { COFFER_TOKEN: token } })).data.id).toBe(token);

      expect((await cli.ok(['token', 'capabilities', token, 'secret/data/t/x'], asRoot)).trim()).toBe('read');
      expect(
        (await cli.ok(['token', 'capabilities', 'secret/data/t/x'], { env: { COFFER_TOKEN: token } })).trim(),
      ).toBe('read');
      expect((await cli.json(['token', 'capabilities', token, 'sys/mounts'], asRoot)).capabilities).toEqual([
        'deny',
      ]);

      const renewed = await cli.json(['token', 'renew', '-increment=2h', token], asRoot);
      expect(renewed.auth.lease_duration).toBe(7200);
      expect((await cli.json(['token', 'renew'], { env: { COFFER_TOKEN: token } })).auth.client_token).toBe(
        token,
      );
      const orphan = await cli.json(['token', 'create', '-orphan', '-policy=default'], asRoot);
      expect(orphan.auth.orphan).toBe(true);

      expect(await cli.ok(['token', 'revoke', '-accessor', accessor], asRoot)).toContain(
        'Success! Revoked token',
      );
      expect((await cli.run(['token', 'lookup', token], asRoot)).code).toBe(2);
      const self = (await server.root.post('auth/token/create', { policies: ['default'] })).body.auth
        .client_token;
      await cli.ok(['token', 'revoke', '-self'], { env: { COFFER_TOKEN: self } });
      expect((await server.root.post('auth/token/lookup', { token: self })).status).toBe(403);
    });
  });

  describe('wrap and unwrap', () => {
    it('-wrap-ttl wraps any response; unwrap returns it once, then exits 2 with a hint', async () => {
      const app = uniq('wrapped');
      await server.root.post(`secret/data/${app}`, { data: { pw: 'hunter2' } });
      const table = await cli.ok(['kv', 'get', '-wrap-ttl=5m', `secret/${app}`], asRoot);
      expect(table).toMatch(/^wrapping_token:\s+hvs\.\S+$/m);
      expect(table).toMatch(/^wrapping_token_ttl:\s+5m$/m);
      expect(table).not.toContain('hunter2');
      const wrapped = await cli.json(['read', '-wrap-ttl=5m', `secret/data/${app}`], asRoot);
      expect(wrapped.wrap_info).toMatchObject({ ttl: 300, creation_path: `secret/data/${app}` });
      const unwrapped = await cli.json(['unwrap', wrapped.wrap_info.token]);
      expect(unwrapped.data.data).toEqual({ pw: 'hunter2' });
      const again = await cli.run(['unwrap', wrapped.wrap_info.token]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('wrapping token is not valid or does not exist');
      expect(again.stderr).toContain('Hint: A wrapping token can be unwrapped only once');

      const wrappedToken = (
        await cli.ok(['token', 'create', '-wrap-ttl=2m', '-field=wrapping_token'], asRoot)
      ).trim();
      const viaOwn = await cli.json(['unwrap'], { env: { COFFER_TOKEN: wrappedToken } });
      expect(viaOwn.auth.client_token).toMatch(/^hvs\./);
      const fieldToken = (
        await cli.ok(['token', 'create', '-wrap-ttl=2m', '-field=wrapping_token'], asRoot)
      ).trim();
      expect(await cli.ok(['unwrap', '-field=token', fieldToken])).toMatch(/^hvs\./);
    });
  });

  describe('mounts: secrets, auth, audit', () => {
    it('secrets enable, list, tune, disable; move reports what the server says', async () => {
      const mount = uniq('mnt');
      await cli.ok(
        ['secrets', 'enable', `-path=${mount}`, '-description=cli test', '-default-lease-ttl=30m', 'kv'],
        asRoot,
      );
      const list = await cli.ok(['secrets', 'list'], asRoot);
      expect(list).toMatch(/^Path\s+Type\s+Accessor\s+Description\n----\s+----\s+--------\s+-----------\n/);
      expect(list).toMatch(new RegExp(`^${mount}/\\s+kv\\s+kv_\\w+\\s+cli test$`, 'm'));
      const detailed = await cli.ok(['secrets', 'list', '-detailed'], asRoot);
      expect(detailed).toMatch(/Default TTL\s+Max TTL/);
      const json = await cli.json(['secrets', 'list'], asRoot);
      expect(json.data[`${mount}/`]).toMatchObject({ type: 'kv', description: 'cli test' });
      expect(
        await cli.ok(['secrets', 'tune', '-max-lease-ttl=2h', '-description=tuned', mount], asRoot),
      ).toContain(`Success! Tuned the secrets engine at: ${mount}/`);
      const tuned = await server.root.get(`sys/mounts/${mount}/tune`);
      expect(tuned.body).toMatchObject({ max_lease_ttl: 7200, description: 'tuned' });
      await cli.ok(['kv', 'put', `-mount=${mount}`, 'app', 'colour=teal'], asRoot);
      const moved = `${mount}-moved`;
      const move = await cli.ok(['secrets', 'move', mount, moved], asRoot);
      expect(move).toMatch(
        new RegExp(
          `^Started moving secrets engine ${mount}/ to ${moved}/, with migration ID [0-9a-f-]{36}$`,
          'm',
        ),
      );
      expect(move).toMatch(
        new RegExp(`^Success! Finished moving secrets engine ${mount}/ to ${moved}/`, 'm'),
      );
      // the data moved with the mount; the old path serves nothing
      expect((await cli.ok(['kv', 'get', `-mount=${moved}`, '-field=colour', 'app'], asRoot)).trim()).toBe(
        'teal',
      );
      expect((await cli.run(['kv', 'get', `-mount=${mount}`, 'app'], asRoot)).code).toBe(2);

      const back = `${mount}-back`;
      const movedBack = await cli.json(['secrets', 'move', moved, back], asRoot);
      expect(movedBack.data).toEqual({
        migration_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        migration_info: { source_mount: `${moved}/`, target_mount: `${back}/`, status: 'success' },
      });
      const status = await cli.json(['read', `sys/remount/status/${movedBack.data.migration_id}`], asRoot);
      expect(status.data.migration_info.status).toBe('success');

      const refused = await cli.run(['secrets', 'move', 'sys', 'elsewhere'], asRoot);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('cannot remount "sys/"');
      const taken = await cli.run(['secrets', 'move', back, 'cubbyhole'], asRoot);
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain('cannot remount to destination cubbyhole/');

      expect(await cli.ok(['secrets', 'disable', back], asRoot)).toContain(
        'Success! Disabled the secrets engine',
      );
      expect((await cli.json(['secrets', 'list'], asRoot)).data[`${back}/`]).toBeUndefined();
    });

    it('auth enable, list, disable', async () => {
      const mount = uniq('up');
      expect(
        await cli.ok(['auth', 'enable', `-path=${mount}`, '-description=people', 'userpass'], asRoot),
      ).toContain(`Success! Enabled userpass auth method at: ${mount}/`);
      expect(await cli.ok(['auth', 'list'], asRoot)).toMatch(
        new RegExp(`^${mount}/\\s+userpass\\s+\\S+\\s+people$`, 'm'),
      );
      expect((await cli.json(['auth', 'list'], asRoot)).data[`${mount}/`].type).toBe('userpass');
      await cli.ok(['auth', 'disable', mount], asRoot);
      expect((await cli.json(['auth', 'list'], asRoot)).data[`${mount}/`]).toBeUndefined();
    });

    it('audit enable, list, disable', async () => {
      const mount = uniq('aud');
      const file = path.join(cli.home, `${mount}.log`);
      expect(
        await cli.ok(['audit', 'enable', `-path=${mount}`, 'file', `file_path=${file}`], asRoot),
      ).toContain(`Success! Enabled the file audit device at: ${mount}/`);
      await cli.ok(['read', 'sys/mounts'], asRoot);
      const list = await cli.ok(['audit', 'list', '-detailed'], asRoot);
      expect(list).toMatch(
        new RegExp(`^${mount}/\\s+file\\s+.*file_path:${file.replace(/[.]/g, '\\.')}`, 'm'),
      );
      const json = await cli.json(['audit', 'list'], asRoot);
      expect(json.data[`${mount}/`]).toMatchObject({ type: 'file', options: { file_path: file } });
      await cli.ok(['audit', 'disable', mount], asRoot);
      expect(readFileSync(file, 'utf8')).toContain('"type":"request"');
    });
  });

  describe('pki, leases, ssh, plugins', () => {
    let caPem: string;
    beforeAll(async () => {
      // dev mode mounts pki/ and ssh/; a cluster starts with secret/ only
      if (kind === 'cluster') {
        await cli.ok(['secrets', 'enable', 'pki'], asRoot);
        await cli.ok(['secrets', 'enable', 'ssh'], asRoot);
      }
      const root = await cli.json(
        ['write', 'pki/root/generate/internal', 'common_name=cli.test', 'ttl=24h'],
        asRoot,
      );
      caPem = root.data.certificate;
      await cli.ok(
        [
          'write',
          'pki/roles/web',
          'allowed_domains=cli.test',
          'allow_subdomains=true',
          'max_ttl=1h',
          'generate_lease=true',
        ],
        asRoot,
      );
    });

    it('pki issue: table, JSON, files; the certificate chains to the CA', async () => {
      const table = await cli.ok(['pki', 'issue', 'web', 'common_name=a.cli.test', 'ttl=10m'], asRoot);
      expect(table).toMatch(/^serial_number\s+[0-9a-f:]+$/m);
      expect(table).toMatch(/^private_key_type\s+rsa$/m);
      const certFile = path.join(cli.home, 'web.pem');
      const keyFile = path.join(cli.home, 'web.key');
      const json = await cli.json(
        [
          'pki',
          'issue',
          '-mount=pki',
          `-cert-file=${certFile}`,
          `-key-file=${keyFile}`,
          'web',
          'common_name=b.cli.test',
        ],
        asRoot,
      );
      const cert = new X509Certificate(json.data.certificate);
      expect(cert.subject).toContain('CN=b.cli.test');
      expect(cert.verify(new X509Certificate(caPem).publicKey)).toBe(true);
      expect(readFileSync(certFile, 'utf8')).toContain(json.data.certificate);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const denied = await cli.run(['pki', 'issue', 'web', 'common_name=evil.example.com'], asRoot);
      expect(denied.code).toBe(2);
    });

    it('lease lookup, renew, revoke', async () => {
      const issued = await cli.json(['pki', 'issue', 'web', 'common_name=lease.cli.test', 'ttl=10m'], asRoot);
      const leaseId: string = issued.lease_id;
      expect(leaseId).toMatch(/^pki\/issue\/web\//);
      const lookup = await cli.ok(['lease', 'lookup', leaseId], asRoot);
      expect(lookup).toMatch(new RegExp(`^id\\s+${leaseId.replace(/[/]/g, '\\/')}$`, 'm'));
      expect((await cli.json(['lease', 'lookup', leaseId], asRoot)).data.id).toBe(leaseId);
      const renew = await cli.run(['lease', 'renew', '-increment=5m', leaseId], asRoot);
      expect([0, 2]).toContain(renew.code); // a PKI lease is not renewable in Vault: the server says so
      if (renew.code === 2) expect(renew.stderr).toMatch(/renew|lease/i);
      expect(await cli.ok(['lease', 'revoke', leaseId], asRoot)).toContain('Success! Revoked lease');
      expect((await cli.run(['lease', 'lookup', leaseId], asRoot)).code).toBe(2);
      const second = await cli.json(['pki', 'issue', 'web', 'common_name=prefix.cli.test'], asRoot);
      expect(await cli.ok(['lease', 'revoke', '-prefix', 'pki/issue/web'], asRoot)).toContain(
        'Success! Revoked any leases with prefix: pki/issue/web',
      );
      expect((await cli.run(['lease', 'lookup', second.lease_id], asRoot)).code).toBe(2);
    });

    it('ssh -mode=ca signs the key and runs ssh with the certificate; -mode=otp prints the password', async () => {
      await cli.ok(['write', 'ssh/config/ca', 'generate_signing_key=true'], asRoot);
      await cli.ok(
        [
          'write',
          'ssh/roles/dev',
          'key_type=ca',
          'allow_user_certificates=true',
          'allowed_users=*',
          'ttl=10m',
        ],
        asRoot,
      );
      const keyFile = path.join(cli.home, 'id_ed25519');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
      // a stand-in ssh that records its arguments and the certificate ssh-keygen reads from it
      const fakeSsh = path.join(cli.home, 'fake-ssh');
      const record = path.join(cli.home, 'ssh-record');
      writeFileSync(
        fakeSsh,
        `#!/bin/sh\necho "$@" > ${record}\nfor a in "$@"; do case "$a" in CertificateFile=*) ssh-keygen -L -f "\${a#CertificateFile=}" >> ${record};; esac; done\nexit 7\n`,
      );
      chmodSync(fakeSsh, 0o755);
      const res = await cli.run(
        [
          'ssh',
          '-mode=ca',
          '-role=dev',
          `-ssh-executable=${fakeSsh}`,
          `-public-key-path=${keyFile}.pub`,
          'alice@127.0.0.1',
          'uptime',
        ],
        asRoot,
      );
      expect(res.code).toBe(7); // ssh's own exit code
      const recorded = readFileSync(record, 'utf8');
      expect(recorded).toContain(`-i ${keyFile} -o CertificateFile=`);
      expect(recorded).toContain('alice@127.0.0.1 uptime');
      expect(recorded).toMatch(/Type: ssh-ed25519-cert-v01@openssh.com user certificate/);
      expect(recorded).toMatch(/Principals:\s*\n\s+alice/);
      const json = await cli.json(
        ['ssh', '-mode=ca', '-role=dev', `-public-key-path=${keyFile}.pub`, 'bob@127.0.0.1'],
        asRoot,
      );
      expect(json.data.signed_key).toMatch(/^ssh-ed25519-cert-v01@openssh.com /);

      await cli.ok(
        ['write', 'ssh/roles/otp', 'key_type=otp', 'default_user=carol', 'cidr_list=127.0.0.0/8'],
        asRoot,
      );
      const otp = await cli.run(
        ['ssh', '-mode=otp', '-role=otp', `-ssh-executable=${fakeSsh}`, 'carol@127.0.0.1'],
        asRoot,
      );
      expect(otp.code).toBe(7);
      const password = /OTP for the session is: (\S+)/.exec(otp.stderr)?.[1];
      expect(password).toBeDefined();
      expect(readFileSync(record, 'utf8')).toContain('carol@127.0.0.1');
      const verify = await server.root.post('ssh/verify', { otp: password });
      expect(verify.body.data).toMatchObject({ username: 'carol', ip: '127.0.0.1', role_name: 'otp' });
      const otpJson = await cli.json(['ssh', '-mode=otp', '-role=otp', 'carol@127.0.0.1'], asRoot);
      expect(otpJson.data).toMatchObject({ key_type: 'otp', username: 'carol', ip: '127.0.0.1' });
      expect((await cli.run(['ssh', '-role=dev', 'x@127.0.0.1'], asRoot)).code).toBe(2);
    });

    it('plugin register, list, info, deregister', async () => {
      const name = uniq('cliplugin');
      const file = path.join(pluginDir, name);
      writeFileSync(file, '#!/bin/sh\nexit 0\n');
      chmodSync(file, 0o755);
      const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
      expect(
        await cli.ok(['plugin', 'register', `-sha256=${sha}`, '-version=v1.0.0', 'secret', name], asRoot),
      ).toContain(`Success! Registered plugin: ${name}`);
      expect(await cli.ok(['plugin', 'list', 'secret'], asRoot)).toMatch(
        new RegExp(`^${name}\\s+secret\\s+v1\\.0\\.0$`, 'm'),
      );
      expect(await cli.ok(['plugin', 'list'], asRoot)).toMatch(/^Name\s+Type\s+Version\n/);
      const info = await cli.json(['plugin', 'info', '-version=v1.0.0', 'secret', name], asRoot);
      expect(info.data).toMatchObject({ name, sha256: sha, version: 'v1.0.0', builtin: false });
      expect(await cli.ok(['plugin', 'info', '-version=v1.0.0', 'secret', name], asRoot)).toMatch(
        /^sha256\s+[0-9a-f]{64}$/m,
      );
      await cli.ok(['plugin', 'deregister', '-version=v1.0.0', 'secret', name], asRoot);
      expect(await cli.ok(['plugin', 'list', 'secret'], asRoot)).not.toContain(name);
      expect((await cli.run(['plugin', 'register', '-sha256=00', 'bogus', name], asRoot)).code).toBe(2);
    });
  });

  describe('operator', () => {
    it('seal, status (exit 2 while sealed, with a hint on other commands), unseal from a piped key', async () => {
      expect(await cli.ok(['operator', 'seal'], asRoot)).toContain('Success! Vault is sealed.');
      const status = await cli.run(['status']);
      expect(status.code).toBe(2);
      expect(status.stdout).toMatch(/^Sealed\s+true$/m);
      const blocked = await cli.run(['kv', 'get', 'secret/x'], asRoot);
      expect(blocked.code).toBe(2);
      expect(blocked.stderr).toMatch(/Hint: The server is sealed/);
      const unseal = await cli.run(['operator', 'unseal'], { input: `${server.unsealKeys[0]}\n` });
      expect(unseal.code).toBe(0);
      expect(unseal.stderr).toContain('Unseal Key (will be hidden):');
      expect(unseal.stdout).toMatch(/^Sealed\s+false$/m);
      expect(unseal.stdout).not.toContain(server.unsealKeys[0]);
      await waitForEngines(server.root);
      expect((await cli.json(['operator', 'unseal', server.unsealKeys[0]!])).sealed).toBe(false);
      expect(await cli.ok(['operator', 'init', '-status'])).toContain('Vault is initialized');
      const again = await cli.run(['operator', 'init']);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already initialized');
    });

    it('generate-root: init with a server OTP, one key share, decode', async () => {
      const init = await cli.json(['operator', 'generate-root', '-init']);
      expect(init).toMatchObject({ started: true, progress: 0, required: 1 });
      const otp: string = init.otp;
      const status = await cli.ok(['operator', 'generate-root', '-status']);
      expect(status).toMatch(/^Root Generation Progress\s+0\/1$/m);
      const done = await cli.json([
        'operator',
        'generate-root',
        `-nonce=${init.nonce}`,
        server.unsealKeys[0]!,
      ]);
      expect(done.complete).toBe(true);
      const token = await cli.ok([
        'operator',
        'generate-root',
        `-decode=${done.encoded_token}`,
        `-otp=${otp}`,
      ]);
      const lookup = await server.root.post('auth/token/lookup', { token });
      expect(lookup.body.data.policies).toEqual(['root']);
      await cli.ok(['operator', 'generate-root', '-init']);
      expect(await cli.ok(['operator', 'generate-root', '-cancel'])).toContain('canceled');
    });

    it('members lists the live core-sys nodes, the seal leader active, in table and JSON', async () => {
      const members = async () => (await cli.json(['operator', 'members'], asRoot)).data.nodes as unknown[];
      let nodes = await members();
      expect(nodes).toEqual([
        {
          hostname: expect.any(String),
          api_address: server.baseUrl,
          cluster_address: expect.any(String),
          active_node: true,
          last_echo: null,
          version: expect.any(String),
          upgrade_version: expect.any(String),
          redundancy_zone: '',
        },
      ]);
      if (server.addCoreSys) {
        // a second replica is a standby: listed after the active node, with its last echo
        await server.addCoreSys();
        await waitFor(async () => (nodes = await members()).length === 2, { message: 'two HA members' });
        expect(nodes).toEqual([
          expect.objectContaining({ active_node: true, last_echo: null }),
          expect.objectContaining({ active_node: false, last_echo: expect.any(String) }),
        ]);
      }
      const table = await cli.ok(['operator', 'members'], asRoot);
      const lines = table.split('\n');
      expect(lines[0]).toMatch(
        /^Host Name\s+API Address\s+Cluster Address\s+Active Node\s+Version\s+Last Echo$/,
      );
      expect(lines.filter((l) => /\strue\s/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => l.includes(server.baseUrl))).toHaveLength(nodes.length);
    });

    it('rekey: init, status, a piped key share, new keys that unseal', async () => {
      const init = await cli.ok(['operator', 'rekey', '-init', '-key-shares=2', '-key-threshold=2'], asRoot);
      expect(init).toMatch(/^Rekey Progress\s+0\/1$/m);
      expect(init).toMatch(/^New Shares\s+2$/m);
      expect((await cli.json(['operator', 'rekey', '-status'], asRoot)).started).toBe(true);
      const res = await cli.run(['operator', 'rekey'], { ...asRoot, input: `${server.unsealKeys[0]}\n` });
      expect(res.code).toBe(0);
      const keys = [...res.stdout.matchAll(/^Key \d: (\S+)$/gm)].map((m) => m[1]!);
      expect(keys).toHaveLength(2);
      expect(res.stdout).toContain('Vault rekeyed with 2 key shares and a key threshold of 2.');
      await cli.ok(['operator', 'seal'], asRoot);
      expect((await cli.json(['operator', 'unseal', keys[0]!])).sealed).toBe(true);
      expect((await cli.json(['operator', 'unseal', keys[1]!])).sealed).toBe(false);
      await waitForEngines(server.root);
      server.unsealKeys = keys;
      await cli.ok(['operator', 'rekey', '-init', '-key-shares=1', '-key-threshold=1'], asRoot);
      expect(await cli.ok(['operator', 'rekey', '-cancel'], asRoot)).toContain('Canceled rekeying');
    });
  });
});

/** After an unseal the engines fetch the keyring again: wait until kv answers. */
async function waitForEngines(root: ApiClient): Promise<void> {
  await waitFor(async () => (await root.list('secret/metadata')).status !== 503, { timeoutMs: 60_000 });
}
