import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';
import { currentUser, keygen, run, sshLogin, startSshd, type Sshd } from './support/ssh-peers';
import { expect400, startSshTarget, type SshTarget } from './support/ssh-target';

jest.setTimeout(120_000);
const LABEL = 'ssh-creds';
const HELPER = path.join(__dirname, '..', 'tools', 'ssh-helper', 'coffer-ssh-helper');

/** SSH one-time passwords (with the PAM helper) and dynamic keys over HTTP, against a real sshd. */
describe.each(TARGETS)('%s: ssh creds', (kind) => {
  let ssh: SshTarget;
  let target: Target;
  let root: ApiClient;
  let dir: string;
  let mount: string;
  const me = currentUser();

  beforeAll(async () => {
    ssh = await startSshTarget(kind, LABEL);
    ({ target, mount, dir } = ssh);
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => ssh?.stop());

  describe('one-time passwords', () => {
    const helperConfig = (): string => {
      const file = path.join(dir, 'helper.hcl');
      writeFileSync(
        file,
        `coffer_addr = "${target.baseUrl}"\nssh_mount_point = "${mount}"\nallowed_cidr_list = "127.0.0.0/8"\n`,
      );
      return file;
    };
    const helper = (otp: string, user: string) =>
      run(HELPER, [`-config=${helperConfig()}`, '-dev'], { input: `${otp}\0`, env: { PAM_USER: user } });
    const creds = async (body: Record<string, unknown>, role = 'otp') => {
      const res = await root.post(`${mount}/creds/${role}`, body);
      expect(res.status).toBe(200);
      return res.body;
    };

    beforeAll(async () => {
      const role = {
        key_type: 'otp',
        default_user: me,
        allowed_users: `${me},deploy`,
        cidr_list: '127.0.0.0/8,10.0.0.0/8',
        exclude_cidr_list: '127.0.0.2/32',
      };
      expect((await root.post(`${mount}/roles/otp`, role)).status).toBe(204);
    });

    it('issues an OTP with a lease, which verify consumes once (unauthenticated)', async () => {
      const res = await creds({ ip: '127.0.0.1' });
      expect(res.lease_id).toMatch(new RegExp(`^${mount}/creds/otp/`));
      expect(res.lease_duration).toBeGreaterThan(0);
      expect(res.data).toEqual({
        key_type: 'otp',
        key: expect.stringMatching(/^[0-9a-f-]{36}$/),
        username: me,
        ip: '127.0.0.1',
        port: 22,
      });
      expect(await root.get(`${mount}/roles/otp`)).toMatchObject({
        status: 200,
        body: { data: { key_type: 'otp', port: 22 } },
      });
      const first = await target.anon.post(`${mount}/verify`, { otp: res.data.key });
      expect(first.body.data).toEqual({ username: me, ip: '127.0.0.1', role_name: 'otp' });
      await expect400(target.anon.post(`${mount}/verify`, { otp: res.data.key }), 'OTP not found');
    });

    it('lets exactly one of two concurrent verifies succeed', async () => {
      for (let i = 0; i < 5; i++) {
        const { data } = await creds({ ip: '10.1.2.3' });
        const answers = await Promise.all(
          [0, 1, 2].map(() => target.anon.post(`${mount}/verify`, { otp: data.key })),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
      }
    });

    it('refuses IPs outside the CIDRs, excluded IPs, other users, and an OTP for another user', async () => {
      await expect400(
        root.post(`${mount}/creds/otp`, { ip: '192.168.0.1' }),
        'Error validating IP: IP does not belong to role',
      );
      await expect400(
        root.post(`${mount}/creds/otp`, { ip: '127.0.0.2' }),
        'Error validating IP: IP does not belong to role',
      );
      await expect400(root.post(`${mount}/creds/otp`, { ip: 'not-an-ip' }), 'Invalid IP "not-an-ip"');
      await expect400(root.post(`${mount}/creds/otp`, {}), 'Missing ip');
      await expect400(
        root.post(`${mount}/creds/otp`, { ip: '127.0.0.1', username: 'intruder' }),
        'Username is not present is allowed users list',
      );
      await expect400(root.post(`${mount}/creds/none`, { ip: '127.0.0.1' }), 'Role "none" not found');
      const { data } = await creds({ ip: '127.0.0.1', username: 'deploy' });
      await expect400(
        target.anon.post(`${mount}/verify`, { otp: data.key, username: me }),
        'OTP was not issued for this username',
      );
      await expect400(
        target.anon.post(`${mount}/verify`, { otp: data.key, ip: '127.0.0.9' }),
        'OTP was not issued for this IP',
      );
      expect(
        (await target.anon.post(`${mount}/verify`, { otp: data.key, username: 'deploy', ip: '127.0.0.1' }))
          .status,
      ).toBe(200);
    });

    it('looks roles up by IP and honours zero-address roles', async () => {
      expect((await root.post(`${mount}/lookup`, { ip: '10.9.9.9' })).body.data.roles).toEqual(['otp']);
      expect((await root.post(`${mount}/lookup`, { ip: '192.168.7.7' })).body.data.roles).toEqual([]);
      await expect400(
        root.post(`${mount}/config/zeroaddress`, { roles: 'nope' }),
        'Role "nope" does not exist',
      );
      expect((await root.post(`${mount}/config/zeroaddress`, { roles: 'otp' })).status).toBe(204);
      expect((await root.get(`${mount}/config/zeroaddress`)).body.data).toEqual({ roles: ['otp'] });
      expect((await root.post(`${mount}/lookup`, { ip: '192.168.7.7' })).body.data.roles).toEqual(['otp']);
      expect((await creds({ ip: '192.168.7.7' })).data.ip).toBe('192.168.7.7');
      expect((await root.delete(`${mount}/config/zeroaddress`)).status).toBe(204);
      expect((await root.get(`${mount}/config/zeroaddress`)).status).toBe(404);
    });

    it('deletes the OTP when its lease is revoked', async () => {
      const res = await creds({ ip: '127.0.0.1' });
      expect((await root.put('sys/leases/revoke', { lease_id: res.lease_id })).status).toBe(204);
      await expect400(target.anon.post(`${mount}/verify`, { otp: res.data.key }), 'OTP not found');
    });

    it('ships a PAM helper that verifies the OTP once, for its user and host only', async () => {
      expect((await run(HELPER, [`-config=${helperConfig()}`, '-dev', '-verify-only'])).code).toBe(0);
      const { data } = await creds({ ip: '127.0.0.1' });
      expect((await helper(data.key, 'deploy')).code).toBe(1);
      const ok = await helper(data.key, me);
      expect({ code: ok.code, out: ok.stdout }).toEqual({
        code: 0,
        out: expect.stringContaining('authenticated'),
      });
      expect((await helper(data.key, me)).code).toBe(1);
      const far = await creds({ ip: '10.0.0.5' });
      expect((await helper(far.data.key, me)).stderr).toContain('issued for another host');
    });
  });

  describe('dynamic keys (deprecated)', () => {
    let sshd: Sshd;

    beforeAll(async () => {
      sshd = await startSshd(dir);
      const admin = await keygen(dir, 'admin');
      writeFileSync(sshd.authorizedKeys, `${admin.publicKey}\n`);
      await expect400(root.post(`${mount}/keys/admin`, { key: 'nope' }), 'Invalid key');
      expect((await root.post(`${mount}/keys/admin`, { key: readFileSync(admin.path, 'utf8') })).status).toBe(
        204,
      );
    });
    afterAll(() => sshd?.stop());

    it('installs a fresh key with key_option_specs that sshd accepts, and removes it on lease revocation', async () => {
      const base = {
        key_type: 'dynamic',
        key: 'admin',
        admin_user: me,
        default_user: me,
        cidr_list: '127.0.0.1/32',
        port: sshd.port,
      };
      await root.post(`${mount}/roles/probe`, base);
      const builtIn: string = (await root.get(`${mount}/roles/probe`)).body.data.install_script;
      // the built-in script, pointed at this sshd's authorized_keys instead of ~/.ssh
      const script = builtIn.replace('AUTH_KEYS="$3"', `AUTH_KEYS="${sshd.authorizedKeys}"`);
      expect(script).not.toBe(builtIn);
      await root.post(`${mount}/roles/dyn`, {
        ...base,
        install_script: script,
        key_option_specs: 'no-port-forwarding',
        key_bits: 2048,
      });
      const res = await root.post(`${mount}/creds/dyn`, { ip: '127.0.0.1' });
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
      expect(res.body.data).toMatchObject({
        key_type: 'dynamic',
        username: me,
        ip: '127.0.0.1',
        key_bits: 2048,
        admin_user: me,
      });
      expect(res.body.renewable).toBe(true);
      const keyFile = path.join(dir, 'dynamic_key');
      writeFileSync(keyFile, res.body.data.key, { mode: 0o600 });
      expect(readFileSync(sshd.authorizedKeys, 'utf8')).toMatch(/^no-port-forwarding ssh-rsa /m);
      expect((await sshLogin({ port: sshd.port, identity: keyFile })).code).toBe(0);
      expect((await root.put('sys/leases/revoke', { lease_id: res.body.lease_id })).status).toBe(204);
      expect((await sshLogin({ port: sshd.port, identity: keyFile })).code).not.toBe(0);
      expect(readFileSync(sshd.authorizedKeys, 'utf8').trim().split('\n')).toHaveLength(1);
      await expect400(
        root.post(`${mount}/creds/dyn`, { ip: '127.0.0.5' }),
        'Error validating IP: IP does not belong to role',
      );
      await expect400(root.post(`${mount}/roles/bad`, { ...base, key_bits: 4096 }), 'invalid key_bits field');
    });
  });
});
