import nodeVault from 'node-vault';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

const UNSUPPORTED_PATH = '1 error occurred:\n\t* unsupported path\n\n';
const UNSUPPORTED_OPERATION = '1 error occurred:\n\t* unsupported operation\n\n';

/**
 * Response shapes and routing answers found by driving sys/ with Vault clients: policy routes
 * answer their fields at the top level and in the envelope; a known path without the method
 * answers 405, an unknown one 404; a path parameter ending in "." answers 404 and changes nothing.
 */
describe.each(TARGETS)('%s: sys response shapes and routing answers', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'shapes' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  describe('policy routes: top-level fields and the envelope', () => {
    const text = 'path "secret/data/shapes/*" {\n  capabilities = ["read"]\n}\n';
    let name: string;

    beforeAll(async () => {
      name = uniq('shape');
      expect((await root.put(`sys/policies/acl/${name}`, { policy: text })).status).toBe(204);
    });

    it('LIST sys/policies/acl and GET ?list=true answer keys twice', async () => {
      for (const res of [await root.list('sys/policies/acl'), await root.get('sys/policies/acl?list=true')]) {
        expect(res.status).toBe(200);
        expect(res.body.keys).toEqual(res.body.data.keys);
        expect(res.body.keys).toEqual(expect.arrayContaining(['default', 'root', name]));
        expect(res.body).toHaveProperty('request_id');
      }
    });

    it('GET sys/policies/acl/:name answers name and policy twice', async () => {
      const res = await root.get(`sys/policies/acl/${name}`);
      expect(res.body).toMatchObject({ name, policy: text, data: { name, policy: text } });
    });

    it('legacy GET sys/policy answers policies and keys, GET sys/policy/:name rules', async () => {
      const list = await root.get('sys/policy');
      expect(list.body.policies).toEqual(list.body.keys);
      expect(list.body.data.policies).toContain(name);
      const read = await root.get(`sys/policy/${name}`);
      expect(read.body).toMatchObject({ name, rules: text, data: { name, rules: text } });
    });

    it('the published node-vault client reads sys/policy and lists policies unchanged', async () => {
      const vault = nodeVault({ apiVersion: 'v1', endpoint: target.baseUrl, token: target.rootToken });
      expect((await vault.policies()).policies).toContain(name);
      expect((await vault.getPolicy({ name })).rules).toBe(text);
      expect((await vault.list('sys/policies/acl')).data.keys).toContain(name);
      expect((await vault.read(`sys/policies/acl/${name}`)).data.policy).toBe(text);
    });
  });

  describe('405 for a known path without the method, 404 for an unknown path', () => {
    it('answers 405 unsupported operation', async () => {
      const v1 = uniq('v1');
      expect((await root.post(`sys/mounts/${v1}`, { type: 'kv', options: { version: '1' } })).status).toBe(
        204,
      );
      const cases = [
        await root.delete('sys/seal-status'),
        await root.delete('sys/health'),
        await root.post('sys/policies/acl', {}),
        await root.patch(
          `${v1}/x`,
          { a: 1 },
          { headers: { 'content-type': 'application/merge-patch+json' } },
        ),
        await root.delete('sys/decode-token'),
      ];
      for (const res of cases) {
        expect(res.status).toBe(405);
        expect(res.body.errors).toEqual([UNSUPPORTED_OPERATION]);
      }
    });

    it('answers 404 for unknown paths', async () => {
      expect((await root.get('sys/no-such-thing')).status).toBe(404);
      expect((await root.get('sys/no-such-thing')).body.errors).toEqual([UNSUPPORTED_PATH]);
      expect((await root.get('nomount/x')).status).toBe(404);
    });
  });

  describe('a path parameter ending in "." answers 404 and creates nothing', () => {
    it('kv v2 write, read and list', async () => {
      const dir = uniq('dots');
      const write = await root.put(`secret/data/${dir}/name.`, { data: { a: 1 } });
      expect(write.status).toBe(404);
      expect(write.body.errors).toEqual([UNSUPPORTED_PATH]);
      expect((await root.get(`secret/data/${dir}/name.`)).status).toBe(404);
      const list = await root.list(`secret/metadata/${dir}.`);
      expect(list.status).toBe(404);
      expect(list.body.errors).toEqual([UNSUPPORTED_PATH]);
      expect((await root.list(`secret/metadata/${dir}`)).status).toBe(404);
    });

    it('kv v1, policies, mounts', async () => {
      const v1 = uniq('v1dot');
      await root.post(`sys/mounts/${v1}`, { type: 'kv', options: { version: '1' } });
      expect((await root.put(`${v1}/a.`, { v: 1 })).status).toBe(404);
      expect((await root.list(v1)).status).toBe(404);
      const policy = uniq('pol');
      const put = await root.put(`sys/policies/acl/${policy}.`, {
        policy: 'path "x" { capabilities = ["read"] }',
      });
      expect(put.status).toBe(404);
      expect((await root.list('sys/policies/acl')).body.keys).not.toContain(`${policy}.`);
      const mount = uniq('m');
      expect((await root.post(`sys/mounts/${mount}.`, { type: 'kv' })).status).toBe(404);
      expect(Object.keys((await root.get('sys/mounts')).body.data)).not.toContain(`${mount}./`);
    });
  });

  describe('plugin catalog', () => {
    const sha = 'ab'.repeat(32);

    it('lists the builtin engines as builtin, supported entries', async () => {
      const res = await root.get('sys/plugins/catalog');
      expect(res.status).toBe(200);
      expect(res.body.data.secret).toEqual(expect.arrayContaining(['kv']));
      const kv = (res.body.data.detailed as { name: string; builtin: boolean }[]).find(
        (e) => e.name === 'kv',
      );
      expect(kv).toMatchObject({ type: 'secret', builtin: true, deprecation_status: 'supported' });
      expect((await root.list('sys/plugins/catalog/secret')).body.data.keys).toContain('kv');
      const builtin = await root.get('sys/plugins/catalog/secret/kv');
      expect(builtin.body.data).toMatchObject({ name: 'kv', builtin: true, command: '', sha256: '' });
    });

    it('registers, updates, keeps versions side by side, reads, removes (sudo)', async () => {
      const name = uniq('totp');
      const reg = (version: string, command = 'totp-plugin') =>
        root.put(`sys/plugins/catalog/secret/${name}`, {
          sha256: sha,
          command,
          version,
          args: ['--x'],
          env: ['A=1'],
        });
      expect((await reg('')).status).toBe(204);
      expect((await reg('', 'totp-plugin-2')).status).toBe(204);
      expect((await reg('v1.0.0')).status).toBe(204);
      expect((await reg('1.1.0')).status).toBe(204);
      const unversioned = await root.get(`sys/plugins/catalog/secret/${name}`);
      expect(unversioned.body.data).toEqual({
        name,
        version: '',
        sha256: sha,
        command: 'totp-plugin-2',
        args: ['--x'],
        builtin: false,
      });
      expect((await root.get(`sys/plugins/catalog/secret/${name}?version=v1.0.0`)).body.data.version).toBe(
        'v1.0.0',
      );
      const detailed = (await root.get('sys/plugins/catalog')).body.data.detailed as { name: string }[];
      expect(detailed.filter((e) => e.name === name)).toHaveLength(3);
      expect((await root.delete(`sys/plugins/catalog/secret/${name}`)).status).toBe(204);
      const versionNeeded = await root.get(`sys/plugins/catalog/secret/${name}`);
      expect(versionNeeded.status).toBe(400);
      expect((await root.delete(`sys/plugins/catalog/secret/${name}?version=v1.0.0`)).status).toBe(204);
      expect((await root.get(`sys/plugins/catalog/secret/${name}?version=v1.0.0`)).status).toBe(404);

      const policy = uniq('plugins');
      await root.put(`sys/policies/acl/${policy}`, {
        policy:
          'path "sys/plugins/catalog/*" { capabilities = ["create", "read", "update", "delete", "list"] }',
      });
      const token = (await root.post('auth/token/create', { policies: [policy] })).body.auth.client_token;
      const user = target.anon.withToken(token);
      expect(
        (await user.put(`sys/plugins/catalog/secret/${uniq('nosudo')}`, { sha256: sha, command: 'x' }))
          .status,
      ).toBe(403);
      expect((await user.list('sys/plugins/catalog/secret')).status).toBe(200);
    });

    it('refuses bad registrations with 400 and stores nothing', async () => {
      const name = uniq('bad');
      const cases: [string, Record<string, unknown>, string][] = [
        ['secret', { sha256: 'zz'.repeat(32), command: 'x' }, 'Could not decode SHA-256 value from Hex'],
        ['secret', { sha256: 'ab', command: 'x' }, 'SHA-256 value must be 32 bytes'],
        ['secret', { command: 'x' }, 'missing SHA-256 value'],
        ['secret', { sha256: sha }, 'missing command value'],
        ['secret', { sha256: sha, command: '../evil' }, 'path cannot contain parent references'],
        ['secret', { sha256: sha, command: '/usr/bin/env' }, 'command must be inside the plugin directory'],
        ['secret', { sha256: sha, command: 'x', version: 'one' }, 'not a valid semantic version'],
        ['nosuch', { sha256: sha, command: 'x' }, 'is not a supported plugin type'],
      ];
      for (const [type, body, text] of cases) {
        const res = await root.put(`sys/plugins/catalog/${type}/${name}`, body);
        expect(res.status).toBe(400);
        expect(res.body.errors.join('')).toContain(text);
      }
      const listing = (await root.get('sys/plugins/catalog')).body.data.detailed as { name: string }[];
      expect(listing.some((e) => e.name === name)).toBe(false);
    });

    it('answers 405 to POST sys/plugins/catalog', async () => {
      const res = await root.post('sys/plugins/catalog', {});
      expect(res.status).toBe(405);
      expect(res.body.errors).toEqual([UNSUPPORTED_OPERATION]);
    });
  });
});
