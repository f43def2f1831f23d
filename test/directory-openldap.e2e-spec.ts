import { createServer, type Server, type Socket } from 'node:net';
import { START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';
import { freePort, startSlapd, waitFor, type Slapd } from '@coffer/testing';
import { startDirectoryTarget } from './support/directory-target';

jest.setTimeout(120_000);
const LABEL = 'directory-openldap';
const ACCOUNTS = ['svc1', 'svc2', 'lib1', 'lib2', 'lib3', 'lib4', 'tls1'];

/** The directory engine against a real OpenLDAP slapd (schema openldap), in dev and cluster mode. */
describe.each(TARGETS)('%s: directory engine against slapd', (kind) => {
  let slapd: Slapd;
  let target: Target;
  let root: ApiClient;
  let mount: string;
  const config = () => ({
    url: slapd.url,
    binddn: slapd.binddn,
    bindpass: slapd.bindpass,
    userdn: slapd.userdn,
    schema: 'openldap',
    request_timeout: 5,
  });

  beforeAll(async () => {
    slapd = await startSlapd(ACCOUNTS);
    ({ target, mount } = await startDirectoryTarget(kind, LABEL));
    root = target.root;
    expect((await root.post(`${mount}/config`, config())).status).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await slapd?.stop();
  });

  describe('config', () => {
    it('reads back every setting but never the bind password', async () => {
      const res = await root.get(`${mount}/config`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        url: slapd.url,
        binddn: slapd.binddn,
        userdn: slapd.userdn,
        schema: 'openldap',
        userattr: 'cn',
        length: 64,
        formatter: '',
        starttls: false,
        insecure_tls: false,
        tls_min_version: 'tls12',
        tls_max_version: 'tls12',
        request_timeout: 5,
        last_rotation_tolerance: 5,
      });
      expect(res.text).not.toContain(slapd.bindpass);
      expect(res.body.data).not.toHaveProperty('bindpass');
    });

    it.each([
      [
        { length: 13 },
        "it's not possible to generate a _secure_ password of length 13, please boost length to 14, though Vault recommends higher",
      ],
      [
        { formatter: 'no-field', length: 20 },
        'no-field must contain password replacement field of {{PASSWORD}}',
      ],
      [{ ttl: 100, max_ttl: 10 }, 'ttl must be smaller than or equal to max_ttl'],
      [{ tls_min_version: 'tls99' }, "invalid 'tls_min_version'"],
      [
        { certificate: 'not a pem' },
        'failed to parse server tls cert: failed to decode PEM block in the certificate',
      ],
      [{ schema: 'novell' }, 'schema must be "ad" or "openldap"'],
    ])('refuses %j with a 400 and changes nothing', async (body, text) => {
      const res = await root.post(`${mount}/config`, { ...config(), ...body });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([text]);
      expect((await root.get(`${mount}/config`)).body.data.length).toBe(64);
    });
  });

  // before rotate-root: these mounts bind with the initial bind password
  describe('TLS', () => {
    let n = 0;
    /** a fresh mount configured with `settings` over the base config; answers its path */
    const mountWith = async (settings: Record<string, unknown>): Promise<string> => {
      const path = `${mount}-tls${++n}`;
      expect((await root.post(`sys/mounts/${path}`, { type: 'directory' })).status).toBe(204);
      expect((await root.post(`${path}/config`, { ...config(), ...settings })).status).toBe(204);
      return path;
    };

    it('StartTLS with the CA certificate: passwords set over TLS bind', async () => {
      const path = await mountWith({ starttls: true, certificate: slapd.ca });
      expect((await root.post(`${path}/roles/t`, { service_account_name: 'tls1' })).status).toBe(204);
      const creds = (await root.get(`${path}/creds/t`)).body.data;
      expect(await slapd.binds(slapd.dnOf('tls1'), creds.current_password)).toBe(true);
    });

    it('LDAPS with the CA certificate, and TLS 1.3 only', async () => {
      const path = await mountWith({ url: slapd.ldapsUrl, certificate: slapd.ca });
      expect((await root.post(`${path}/roles/t`, { service_account_name: 'tls1' })).status).toBe(204);
      const tls13 = await mountWith({
        url: slapd.ldapsUrl,
        certificate: slapd.ca,
        tls_min_version: 'tls13',
        tls_max_version: 'tls13',
      });
      expect((await root.post(`${tls13}/roles/t`, { service_account_name: 'tls1' })).status).toBe(204);
    });

    it('an untrusted certificate is a 502 unless insecure_tls', async () => {
      const strict = await mountWith({ starttls: true });
      const res = await root.post(`${strict}/roles/t`, { service_account_name: 'tls1' });
      expect(res.status).toBe(502);
      expect(res.body.errors[0]).toContain('could not reach the directory');
      const insecure = await mountWith({ url: slapd.ldapsUrl, insecure_tls: true });
      expect((await root.post(`${insecure}/roles/t`, { service_account_name: 'tls1' })).status).toBe(204);
    });

    it('tries the urls in order while connecting fails', async () => {
      const path = await mountWith({ url: `ldap://127.0.0.1:1,${slapd.url}` });
      expect((await root.post(`${path}/roles/t`, { service_account_name: 'tls1' })).status).toBe(204);
    });
  });

  describe('roles and creds', () => {
    it('refuses a role for an account the directory does not have', async () => {
      const res = await root.post(`${mount}/roles/ghost`, { service_account_name: 'nobody' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('unable to find service account named nobody');
      expect((await root.post(`${mount}/roles/x`, {})).body.errors).toEqual([
        '"service_account_name" is required',
      ]);
    });

    it('hands out a password that binds, and the rotated-away one no longer does', async () => {
      expect(
        (await root.post(`${mount}/roles/app`, { service_account_name: 'svc1', ttl: '1h' })).status,
      ).toBe(204);
      expect((await root.list(`${mount}/roles`)).body.data.keys).toEqual(['app']);
      const first = await root.get(`${mount}/creds/app`);
      expect(first.status).toBe(200);
      const password: string = first.body.data.current_password;
      expect(first.body.data.username).toBe('svc1');
      expect(password).toHaveLength(64);
      expect(password.startsWith('?@09AZ')).toBe(true);
      expect(await slapd.binds(slapd.dnOf('svc1'), password)).toBe(true);
      expect(await slapd.binds(slapd.dnOf('svc1'), 'initial-svc1')).toBe(false);
      // a second read answers the same password
      expect((await root.get(`${mount}/creds/app`)).body.data.current_password).toBe(password);
      const role = await root.get(`${mount}/roles/app`);
      expect(role.body.data).toMatchObject({ service_account_name: 'svc1', ttl: 3600 });
      expect(typeof role.body.data.last_vault_rotation).toBe('string');

      expect((await root.post(`${mount}/rotate-role/app`)).status).toBe(204);
      const after = (await root.get(`${mount}/creds/app`)).body.data;
      expect(after.last_password).toBe(password);
      expect(after.current_password).not.toBe(password);
      expect(await slapd.binds(slapd.dnOf('svc1'), after.current_password)).toBe(true);
      expect(await slapd.binds(slapd.dnOf('svc1'), password)).toBe(false);
      expect((await root.post(`${mount}/rotate-role/missing`)).body.errors).toEqual([
        'role missing does not exist',
      ]);
    });

    it('rotates a role on its ttl, once, from the rotation loop', async () => {
      expect((await root.post(`${mount}/roles/short`, { service_account_name: 'svc2', ttl: 2 })).status).toBe(
        204,
      );
      const first: string = (await root.get(`${mount}/creds/short`)).body.data.current_password;
      // no reads in between: only the rotation loop can change it
      await waitFor(async () => !(await slapd.binds(slapd.dnOf('svc2'), first)), {
        timeoutMs: 20_000,
        intervalMs: 200,
      });
      const creds = (await root.get(`${mount}/creds/short`)).body.data;
      const next: string = creds.current_password;
      expect(creds.last_password).toBe(first);
      expect(await slapd.binds(slapd.dnOf('svc2'), next)).toBe(true);
      expect(await slapd.binds(slapd.dnOf('svc2'), first)).toBe(false);
      expect((await root.delete(`${mount}/roles/short`)).status).toBe(204);
      expect((await root.get(`${mount}/creds/short`)).status).toBe(404);
    });

    it('rotate-root replaces the bind password with one only Coffer knows', async () => {
      const res = await root.get(`${mount}/rotate-root`);
      expect(res.status).toBe(204);
      expect(await slapd.binds(slapd.binddn, slapd.bindpass)).toBe(false);
      expect(typeof (await root.get(`${mount}/config`)).body.data.last_bind_password_rotation).toBe('string');
      // the engine still works with its new bind password
      expect((await root.post(`${mount}/rotate-role/app`)).status).toBe(204);
      const creds = (await root.get(`${mount}/creds/app`)).body.data;
      expect(await slapd.binds(slapd.dnOf('svc1'), creds.current_password)).toBe(true);
    });
  });

  describe('library', () => {
    const tokenFor = async (): Promise<ApiClient> => {
      const policy = `path "${mount}/*" { capabilities = ["create", "read", "update", "delete", "list"] }`;
      await root.put(`sys/policies/acl/${mount}-lib`, { policy });
      const res = await root.post('auth/token/create', { policies: [`${mount}-lib`] });
      return root.withToken(res.body.auth.client_token);
    };

    it('creates a set, refusing accounts of another set and bad ttls', async () => {
      expect(
        (
          await root.post(`${mount}/library/team`, {
            service_account_names: 'lib1,lib2,lib3',
            ttl: '1h',
            max_ttl: '2h',
          })
        ).status,
      ).toBe(204);
      const read = await root.get(`${mount}/library/team`);
      expect(read.body.data).toEqual({
        service_account_names: ['lib1', 'lib2', 'lib3'],
        ttl: 3600,
        max_ttl: 7200,
        disable_check_in_enforcement: false,
      });
      expect(await slapd.binds(slapd.dnOf('lib1'), 'initial-lib1')).toBe(false);
      expect(
        (await root.post(`${mount}/library/other`, { service_account_names: ['lib1'] })).body.errors,
      ).toEqual(['"lib1" is already managed by another set']);
      expect(
        (await root.post(`${mount}/library/bad`, { service_account_names: ['lib4'], ttl: 100, max_ttl: 10 }))
          .body.errors,
      ).toEqual(['max_ttl (10 seconds) may not be less than ttl (100 seconds)']);
      expect((await root.list(`${mount}/library`)).body.data.keys).toEqual(['team']);
    });

    it('10 concurrent check-outs of 3 accounts: 3 distinct accounts whose passwords bind, 7 × 400', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => root.post(`${mount}/library/team/check-out`, {})),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 400);
      expect(ok).toHaveLength(3);
      expect(refused).toHaveLength(7);
      for (const r of refused)
        expect(r.body.errors).toEqual(['No service accounts available for check-out.']);
      const names = ok.map((r) => r.body.data.service_account_name as string).sort();
      expect(names).toEqual(['lib1', 'lib2', 'lib3']);
      for (const r of ok) {
        expect(r.body.renewable).toBe(true);
        expect(r.body.lease_duration).toBe(3600);
        expect(r.body.lease_id).toContain(`${mount}/library/team/check-out/`);
        expect(await slapd.binds(slapd.dnOf(r.body.data.service_account_name), r.body.data.password)).toBe(
          true,
        );
      }
      const status = (await root.get(`${mount}/library/team/status`)).body.data;
      expect(status.lib1.available).toBe(false);
      // check all three in (forced), rotating their passwords
      const forced = await root.post(`${mount}/library/manage/team/check-in`, {
        service_account_names: names,
      });
      expect(forced.body.data.check_ins.sort()).toEqual(names);
      for (const r of ok)
        expect(await slapd.binds(slapd.dnOf(r.body.data.service_account_name), r.body.data.password)).toBe(
          false,
        );
      for (const r of ok) await root.put('sys/leases/revoke', { lease_id: r.body.lease_id });
    });

    it('enforces check-in by the borrower, unless forced; an available account is not listed', async () => {
      const borrower = await tokenFor();
      const other = await tokenFor();
      const out = await borrower.post(`${mount}/library/team/check-out`, { ttl: '10h' });
      expect(out.status).toBe(200);
      expect(out.body.lease_duration).toBe(3600); // capped at the set's ttl
      const name: string = out.body.data.service_account_name;
      const status = (await root.get(`${mount}/library/team/status`)).body.data[name];
      expect(status.available).toBe(false);
      expect(typeof status.borrower_client_token).toBe('string');
      const denied = await other.post(`${mount}/library/team/check-in`, { service_account_names: [name] });
      expect(denied.status).toBe(400);
      expect(denied.body.errors).toEqual([
        `"${name}" can't be checked in because it wasn't checked out by the caller`,
      ]);
      // without names: the caller's only check-out
      const mine = await borrower.post(`${mount}/library/team/check-in`, {});
      expect(mine.body.data.check_ins).toEqual([name]);
      expect(await slapd.binds(slapd.dnOf(name), out.body.data.password)).toBe(false);
      const again = await borrower.post(`${mount}/library/team/check-in`, { service_account_names: [name] });
      expect(again.status).toBe(200);
      expect(again.body.data.check_ins).toEqual([]);
    });

    it('ends a check-out when its lease is revoked (automatic check-in)', async () => {
      const out = await root.post(`${mount}/library/team/check-out`, { ttl: 30 });
      expect(out.body.lease_duration).toBe(30);
      const name: string = out.body.data.service_account_name;
      expect((await root.put('sys/leases/revoke', { lease_id: out.body.lease_id })).status).toBe(204);
      await waitFor(
        async () => (await root.get(`${mount}/library/team/status`)).body.data[name].available === true,
        { timeoutMs: 20_000 },
      );
      expect(await slapd.binds(slapd.dnOf(name), out.body.data.password)).toBe(false);
    });

    it('refuses to delete a set with a checked-out account', async () => {
      const out = await root.post(`${mount}/library/team/check-out`, {});
      const res = await root.delete(`${mount}/library/team`);
      expect(res.status).toBe(400);
      await root.put('sys/leases/revoke', { lease_id: out.body.lease_id });
    });
  });

  describe('faults', () => {
    it('a directory that is down: 502 with a clear message, the password unchanged', async () => {
      const before = (await root.get(`${mount}/creds/app`)).body.data.current_password;
      await slapd.pause();
      try {
        const res = await root.post(`${mount}/rotate-role/app`);
        expect(res.status).toBe(502);
        expect(res.body.errors[0]).toContain('could not reach the directory');
      } finally {
        await slapd.resume();
      }
      const after = (await root.get(`${mount}/creds/app`)).body.data.current_password;
      expect(after).toBe(before);
      expect(await slapd.binds(slapd.dnOf('svc1'), after)).toBe(true);
    });

    it('a directory that never answers: 502 after request_timeout', async () => {
      const sockets: Socket[] = [];
      const silent: Server = createServer((s) => sockets.push(s));
      const port = await freePort();
      await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
      const slow = `${mount}-slow`;
      await root.post(`sys/mounts/${slow}`, { type: 'directory' });
      try {
        await root.post(`${slow}/config`, {
          ...config(),
          url: `ldap://127.0.0.1:${port}`,
          request_timeout: 1,
        });
        const started = Date.now();
        const res = await root.post(`${slow}/roles/x`, { service_account_name: 'svc1' });
        expect(res.status).toBe(502);
        expect(res.body.errors[0]).toMatch(/could not reach the directory.*timed out/);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect((await root.get(`${slow}/roles/x`)).status).toBe(404);
      } finally {
        for (const s of sockets) s.destroy();
        silent.close();
      }
    });
  });

  describe('password policies', () => {
    const policy =
      'length = 24\nrule "charset" {\n  charset = "abcdefghijkmnpqrstuvwxyz"\n  min-chars = 1\n}\nrule "charset" {\n  charset = "23456789"\n  min-chars = 3\n}\n';

    it("sys/policies/password: write, read, list, generate, delete, with Vault's refusals", async () => {
      const name = `${mount}-pol`;
      expect((await root.put(`sys/policies/password/${name}`, { policy })).status).toBe(204);
      expect((await root.get(`sys/policies/password/${name}`)).body.data).toEqual({ policy });
      expect((await root.list('sys/policies/password')).body.data.keys).toContain(name);
      const generated = await root.get(`sys/policies/password/${name}/generate`);
      expect(generated.body.data.password).toMatch(/^[a-z2-9]{24}$/);
      const bad = await root.put(`sys/policies/password/${name}-bad`, {
        policy: 'length = 2\nrule "charset" { charset = "a" }',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual(['passwords must be between 4 and 100 characters']);
      expect((await root.get(`sys/policies/password/${name}-bad`)).status).toBe(404);
      const both = await root.post(`${mount}/config`, { ...config(), password_policy: name, length: 20 });
      expect(both.body.errors).toEqual(['cannot set password_policy and either length or formatter']);
      expect((await root.delete(`sys/policies/password/${name}-other`)).status).toBe(204);
    });

    it("generates directory passwords from the config's password_policy", async () => {
      const name = `${mount}-dir`;
      expect((await root.put(`sys/policies/password/${name}`, { policy })).status).toBe(204);
      // without bindpass: the stored one (rotated by rotate-root) is kept
      const { bindpass: _initial, ...settings } = config();
      expect((await root.post(`${mount}/config`, { ...settings, password_policy: name })).status).toBe(204);
      expect((await root.get(`${mount}/config`)).body.data).toMatchObject({
        password_policy: name,
        length: 0,
      });
      const rotated = await root.post(`${mount}/rotate-role/app`);
      expect({ status: rotated.status, body: rotated.body }).toEqual({ status: 204, body: '' });
      const creds = (await root.get(`${mount}/creds/app`)).body.data;
      expect(creds.current_password).toMatch(/^[a-z2-9]{24}$/);
      expect(await slapd.binds(slapd.dnOf('svc1'), creds.current_password)).toBe(true);
    });
  });
});
