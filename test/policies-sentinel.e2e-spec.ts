import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

// this file's cluster may start on a loaded machine: each process gets 4 minutes to come up
const READY_TIMEOUT_MS = 240_000;
const SLOW_START_MS = START_TIMEOUT_MS + READY_TIMEOUT_MS;

/**
 * Role and endpoint governing policies over HTTP: sys/policies/rgp and sys/policies/egp, and their
 * enforcement in the gateway after the ACL (enforcement levels, override, globs, `*`, logins,
 * time and CIDR conditions, parse errors), in dev and cluster mode.
 */
describe.each(TARGETS)('%s: governing policies (RGP/EGP)', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'sentinel', readyTimeoutMs: READY_TIMEOUT_MS });
    root = target.root;
    const acl =
      'path "secret/data/*" { capabilities = ["create", "read", "update"] }\n' +
      'path "secret/data/soft/*" { capabilities = ["create", "read", "update", "sudo"] }\n';
    expect((await root.put('sys/policies/acl/writer', { policy: acl })).status).toBe(204);
  }, SLOW_START_MS);
  afterAll(() => target?.stop());

  const tokenWith = async (...policies: string[]): Promise<ApiClient> => {
    const res = await root.post('auth/token/create', { policies });
    expect(res.status).toBe(200);
    return target.anon.withToken(res.body.auth.client_token);
  };
  const egp = (name: string, level: string, paths: string | string[], policy: string) =>
    root.put(`sys/policies/egp/${name}`, { policy, enforcement_level: level, paths });
  const rgp = (name: string, level: string, policy: string) =>
    root.put(`sys/policies/rgp/${name}`, { policy, enforcement_level: level });
  const write = (
    client: ApiClient,
    path: string,
    data: Record<string, unknown>,
    headers?: Record<string, string>,
  ) => client.put(`secret/data/${path}`, { data }, headers ? { headers } : {});

  const LEVEL_OK = 'main = rule {\n  request.data.data.level is "ok"\n}\n';

  describe('routes', () => {
    it('writes, reads (top level and data) and lists an RGP', async () => {
      const name = uniq('rgp');
      expect((await rgp(name, 'advisory', LEVEL_OK)).status).toBe(204);
      const read = await root.get(`sys/policies/rgp/${name}`);
      expect(read.status).toBe(200);
      const expected = { name, policy: LEVEL_OK, enforcement_level: 'advisory' };
      expect(read.body.data).toEqual(expected);
      expect(read.body).toMatchObject(expected);
      expect((await root.list('sys/policies/rgp')).body.data.keys).toContain(name);
      expect((await root.delete(`sys/policies/rgp/${name}`)).status).toBe(204);
      expect((await root.get(`sys/policies/rgp/${name}`)).status).toBe(404);
    });

    it('writes an EGP with paths as a comma string; LIST gives keys and name_path_map', async () => {
      const name = uniq('egp');
      expect((await egp(name, 'advisory', 'nowhere/a, nowhere/b/*', LEVEL_OK)).status).toBe(204);
      const read = await root.get(`sys/policies/egp/${name}`);
      expect(read.body).toMatchObject({
        name,
        paths: ['nowhere/a', 'nowhere/b/*'],
        enforcement_level: 'advisory',
      });
      const list = await root.list('sys/policies/egp');
      expect(list.status).toBe(200);
      expect(list.body.data.keys).toContain(name);
      expect(list.body.data.name_path_map[name]).toEqual([
        { path: 'nowhere/a', glob: false },
        { path: 'nowhere/b/*', glob: true },
      ]);
      expect(list.body.name_path_map[name]).toBeDefined();
      expect((await root.delete(`sys/policies/egp/${name}`)).status).toBe(204);
    });

    it('refuses a policy that does not parse with its line and column (400)', async () => {
      const res = await rgp(uniq('bad'), 'hard-mandatory', 'main = rule {\n  request.path is\n}\n');
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatch(/^failed to parse policy: line 3, column 1: /);
      const unknown = await egp(uniq('bad'), 'advisory', '*', 'import "http"\nmain = rule { true }');
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toContain('line 1, column 8');
      expect((await rgp(uniq('bad'), 'sometimes', LEVEL_OK)).status).toBe(400);
      expect(
        (
          await root.put(`sys/policies/egp/${uniq('bad')}`, {
            policy: LEVEL_OK,
            enforcement_level: 'advisory',
          })
        ).status,
      ).toBe(400);
    });
  });

  describe('enforcement', () => {
    it('hard-mandatory EGP on a glob: passes, denies naming policy and rule, root exempt', async () => {
      const name = uniq('hard');
      expect((await egp(name, 'hard-mandatory', 'secret/data/hard/*', LEVEL_OK)).status).toBe(204);
      const t = await tokenWith('writer');
      expect((await write(t, 'hard/a', { level: 'ok' })).status).toBe(200);
      const denied = await write(t, 'hard/a', { level: 'no' });
      expect(denied.status).toBe(403);
      expect(denied.body.errors[0]).toContain(
        `egp standard policy "root/${name}" evaluation resulted in denial`,
      );
      expect(denied.body.errors[0]).toContain('Rule "main"');
      expect(denied.body.errors[0]).toContain('permission denied');
      // outside the glob, and the root token: not governed
      expect((await write(t, 'other/a', { level: 'no' })).status).toBe(200);
      expect((await write(root, 'hard/a', { level: 'no' })).status).toBe(200);
      // the override header does nothing for hard-mandatory
      expect(
        (await write(t, 'hard/a', { level: 'no' }, { 'X-Service-Policy-Override': 'true' })).status,
      ).toBe(403);
      await root.delete(`sys/policies/egp/${name}`);
      expect((await write(t, 'hard/a', { level: 'no' })).status).toBe(200);
    });

    it('soft-mandatory: denied unless overridden by a token with sudo on the path', async () => {
      const name = uniq('soft');
      await egp(name, 'soft-mandatory', ['secret/data/soft/*', 'secret/data/soft2/*'], LEVEL_OK);
      const t = await tokenWith('writer');
      expect((await write(t, 'soft/a', { level: 'ok' })).status).toBe(200);
      const denied = await write(t, 'soft/a', { level: 'no' });
      expect(denied.status).toBe(403);
      expect(denied.body.errors[0]).toContain('X-Service-Policy-Override');
      const overridden = await write(t, 'soft/a', { level: 'no' }, { 'X-Service-Policy-Override': 'true' });
      expect(overridden.status).toBe(200);
      expect(overridden.body.warnings).toEqual([
        expect.stringContaining(`soft-mandatory egp "${name}" failed and was overridden`),
      ]);
      expect((await write(t, 'soft/a', { level: 'no' }, { 'X-Vault-Policy-Override': 'true' })).status).toBe(
        200,
      );
      // no sudo on soft2/: the header is not enough
      expect(
        (await write(t, 'soft2/a', { level: 'no' }, { 'X-Service-Policy-Override': 'true' })).status,
      ).toBe(403);
      await root.delete(`sys/policies/egp/${name}`);
    });

    it('advisory: a failure is allowed and answered (and audited) as a warning', async () => {
      const name = uniq('adv');
      await egp(name, 'advisory', 'secret/data/adv/*', LEVEL_OK);
      const t = await tokenWith('writer');
      const ok = await write(t, 'adv/a', { level: 'ok' });
      expect(ok.status).toBe(200);
      expect(ok.body.warnings).toBeNull();
      const device = uniq('audit');
      const file = path.join(tmpdir(), `coffer-sentinel-${device}.log`);
      expect(
        (await root.put(`sys/audit/${device}`, { type: 'file', options: { file_path: file } })).status,
      ).toBe(204);
      const failed = await write(t, 'adv/a', { level: 'no' });
      expect(failed.status).toBe(200);
      expect(failed.body.warnings).toEqual([`advisory egp "${name}" failed`]);
      expect((await root.delete(`sys/audit/${device}`)).status).toBe(204);
      const entries = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
      const response = entries
        .map((l) => JSON.parse(l))
        .find((e) => e.type === 'response' && e.request?.path === 'secret/data/adv/a');
      expect(response?.response?.warnings).toEqual([`advisory egp "${name}" failed`]);
      await rm(file, { force: true });
      await root.delete(`sys/policies/egp/${name}`);
    });

    it('an RGP attached through a token policy name; a change applies on the next request', async () => {
      const name = uniq('rgp');
      await rgp(name, 'hard-mandatory', 'main = rule { request.operation is "read" }');
      const governed = await tokenWith('writer', name);
      const free = await tokenWith('writer');
      await write(root, 'rgp/a', { v: 1 });
      expect((await governed.get('secret/data/rgp/a')).status).toBe(200);
      const denied = await write(governed, 'rgp/a', { v: 2 });
      expect(denied.status).toBe(403);
      expect(denied.body.errors[0]).toContain(`rgp standard policy "root/${name}"`);
      expect((await write(free, 'rgp/a', { v: 2 })).status).toBe(200);
      await rgp(name, 'hard-mandatory', 'main = rule { request.operation in ["read", "update", "create"] }');
      expect((await write(governed, 'rgp/a', { v: 3 })).status).toBe(200);
      await root.delete(`sys/policies/rgp/${name}`);
    });

    it('an EGP on "*" governs every authenticated request', async () => {
      const name = uniq('star');
      const marker = uniq('blocked');
      await egp(name, 'hard-mandatory', '*', `main = rule { request.path not contains "${marker}" }`);
      const t = await tokenWith('writer');
      expect((await write(t, `${marker}/x`, { v: 1 })).status).toBe(403);
      expect((await t.get('auth/token/lookup-self')).status).toBe(200);
      expect((await write(t, 'fine/x', { v: 1 })).status).toBe(200);
      await root.delete(`sys/policies/egp/${name}`);
      expect((await write(t, `${marker}/x`, { v: 1 })).status).toBe(200);
    });

    it('an EGP on a login path governs the (unauthenticated) login', async () => {
      const mount = uniq('up');
      expect((await root.post(`sys/auth/${mount}`, { type: 'userpass' })).status).toBe(204);
      await root.post(`auth/${mount}/users/alice`, { password: 'pw-1', policies: 'writer' });
      await root.post(`auth/${mount}/users/bob`, { password: 'pw-2', policies: 'writer' });
      const name = uniq('login');
      await egp(
        name,
        'hard-mandatory',
        `auth/${mount}/login/*`,
        'main = rule { request.path not matches "/bob$" }',
      );
      expect((await target.anon.post(`auth/${mount}/login/alice`, { password: 'pw-1' })).status).toBe(200);
      const bob = await target.anon.post(`auth/${mount}/login/bob`, { password: 'pw-2' });
      expect(bob.status).toBe(403);
      expect(bob.body.errors[0]).toContain(`root/${name}`);
      await root.delete(`sys/policies/egp/${name}`);
      const bobLogin = await target.anon.post(`auth/${mount}/login/bob`, { password: 'pw-2' });
      expect(bobLogin.status).toBe(200);

      // identity data: the caller's entity aliases
      const ident = uniq('ident');
      await egp(
        ident,
        'hard-mandatory',
        'secret/data/ident/*',
        'main = rule { any identity.entity.aliases as a { a.name is "alice" } }',
      );
      const alice = await target.anon.post(`auth/${mount}/login/alice`, { password: 'pw-1' });
      const asAlice = target.anon.withToken(alice.body.auth.client_token);
      const asBob = target.anon.withToken(bobLogin.body.auth.client_token);
      expect((await write(asAlice, 'ident/a', { v: 1 })).status).toBe(200);
      expect((await write(asBob, 'ident/a', { v: 1 })).status).toBe(403);
      await root.delete(`sys/policies/egp/${ident}`);
    });

    it('time-based policies (time import)', async () => {
      const name = uniq('time');
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      const t = await tokenWith('writer');
      await egp(
        name,
        'hard-mandatory',
        'secret/data/time/*',
        `import "time"\nmain = rule {\n  time.now.unix > ${hourAgo} and time.now.weekday_name in ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]\n}\n`,
      );
      expect((await write(t, 'time/a', { v: 1 })).status).toBe(200);
      await egp(
        name,
        'hard-mandatory',
        'secret/data/time/*',
        `import "time"\nmain = rule { time.now.unix < ${hourAgo} }\n`,
      );
      expect((await write(t, 'time/a', { v: 1 })).status).toBe(403);
      await root.delete(`sys/policies/egp/${name}`);
    });

    it('CIDR-based policies (sockaddr.is_contained on the remote address)', async () => {
      const name = uniq('cidr');
      const t = await tokenWith('writer');
      const cidr = (net: string) =>
        egp(
          name,
          'hard-mandatory',
          'secret/data/cidr/*',
          `import "sockaddr"\nmain = rule { sockaddr.is_contained("${net}", request.connection.remote_addr) }\n`,
        );
      await cidr('127.0.0.0/8');
      expect((await write(t, 'cidr/a', { v: 1 })).status).toBe(200);
      await cidr('10.0.0.0/8');
      expect((await write(t, 'cidr/a', { v: 1 })).status).toBe(403);
      await root.delete(`sys/policies/egp/${name}`);
    });

    it('a runtime error is a failure, with the error in the denial', async () => {
      const name = uniq('err');
      await egp(name, 'hard-mandatory', 'secret/data/err/*', 'main = rule { request.data.data.n > 3 }');
      const t = await tokenWith('writer');
      expect((await write(t, 'err/a', { n: 4 })).status).toBe(200);
      const denied = await write(t, 'err/a', { n: 'four' });
      expect(denied.status).toBe(403);
      expect(denied.body.errors[0]).toContain('cannot compare string > int');
      // an undefined main fails too
      expect((await write(t, 'err/a', { m: 4 })).status).toBe(403);
      await root.delete(`sys/policies/egp/${name}`);
    });

    it('token and identity data (token.policies, token.type, token.creation_time)', async () => {
      const name = uniq('tok');
      await egp(
        name,
        'hard-mandatory',
        'secret/data/tok/*',
        'import "time"\nmain = rule {\n  "writer" in token.policies and token.type is "service" and\n  time.load(token.creation_time).unix <= time.now.unix and token.ttl > 0\n}\n',
      );
      const t = await tokenWith('writer');
      expect((await write(t, 'tok/a', { v: 1 })).status).toBe(200);
      await root.delete(`sys/policies/egp/${name}`);
    });
  });
});
