import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@coffer/testing';
import { waitForEngines } from './support/launch/bootstrap';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';
import {
  currentUser,
  describeCertificate,
  keygen,
  run,
  sshLogin,
  startSshd,
  type Sshd,
} from './support/ssh-peers';

jest.setTimeout(120_000);

const HELPER = path.join(__dirname, '..', 'tools', 'ssh-helper', 'coffer-ssh-helper');

/** The SSH engine over HTTP, proven by OpenSSH itself: ssh-keygen -L, sshd and ssh. */
describe.each(TARGETS)('%s: ssh engine', (kind) => {
  let target: Target;
  let root: ApiClient;
  let dir: string;
  let mount: string;
  const me = currentUser();

  const expect400 = async (res: Promise<{ status: number; body: any }>, text: string | RegExp) => {
    const { status, body } = await res;
    expect({ status, errors: body.errors }).toEqual({
      status: 400,
      errors: [typeof text === 'string' ? text : expect.stringMatching(text)],
    });
  };
  const sign = (role: string, body: Record<string, unknown>, client = root) =>
    client.post(`${mount}/sign/${role}`, body);

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'ssh' });
    root = target.root;
    if (kind === 'cluster') {
      expect((await root.post('sys/mounts/ssh', { type: 'ssh' })).status).toBe(204);
      await waitForEngines(target.baseUrl, target.rootToken);
    }
    mount = uniq('ssh');
    expect((await root.post(`sys/mounts/${mount}`, { type: 'ssh' })).status).toBe(204);
    dir = mkdtempSync(path.join(tmpdir(), 'coffer-ssh-'));
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has ssh/ mounted, a 400 for a CA-less sign and a 404 public_key before a CA exists', async () => {
    expect((await root.get('sys/mounts')).body.data['ssh/']).toMatchObject({ type: 'ssh' });
    expect((await target.anon.get(`${mount}/public_key`)).status).toBe(404);
    await expect400(root.get(`${mount}/config/ca`), "keys haven't been configured yet");
  });

  describe('CA', () => {
    it('generates an RSA 4096 CA by default (200 with the key), served as text/plain without a token', async () => {
      const res = await root.post(`${mount}/config/ca`, {});
      expect(res.status).toBe(200);
      const pub = await target.anon.get(`${mount}/public_key`);
      expect(pub.status).toBe(200);
      expect(pub.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(pub.text).toBe(res.body.data.public_key);
      const bits = await run('ssh-keygen', ['-l', '-f', '-'], { input: pub.text });
      expect(bits.stdout).toMatch(/^4096 SHA256:.*\(RSA\)/);
      expect((await root.get(`${mount}/config/ca`)).body.data.public_key).toBe(pub.text);
    });

    it('takes a submitted RSA, ECDSA or ed25519 key pair (204), replacing the current CA', async () => {
      for (const [type, bits] of [
        ['rsa', 2048],
        ['ecdsa', 384],
        ['ed25519', undefined],
      ] as const) {
        const key = await keygen(dir, uniq(`ca-${type}`), type, bits);
        const body = {
          generate_signing_key: false,
          private_key: readFileSync(key.path, 'utf8'),
          public_key: key.publicKey,
        };
        expect((await root.post(`${mount}/config/ca`, body)).status).toBe(204);
        expect((await target.anon.get(`${mount}/public_key`)).text.trim()).toBe(
          key.publicKey.split(' ').slice(0, 2).join(' '),
        );
      }
    });

    it('refuses bad CA input', async () => {
      const key = await keygen(dir, uniq('ca-bad'));
      await expect400(
        root.post(`${mount}/config/ca`, { generate_signing_key: false, public_key: key.publicKey }),
        'missing private_key',
      );
      await expect400(
        root.post(`${mount}/config/ca`, {
          generate_signing_key: false,
          private_key: 'nope',
          public_key: key.publicKey,
        }),
        /^Unable to parse private_key/,
      );
      await expect400(
        root.post(`${mount}/config/ca`, { private_key: readFileSync(key.path, 'utf8') }),
        /^only one of public_key and private_key/,
      );
    });
  });

  describe('certificates, checked by ssh-keygen and accepted by sshd', () => {
    let sshd: Sshd;
    let user: { path: string; publicKey: string };
    let caPublicKey: string;

    beforeAll(async () => {
      expect(
        (await root.post(`${mount}/config/ca`, { generate_signing_key: true, key_type: 'ssh-ed25519' }))
          .status,
      ).toBe(200);
      caPublicKey = (await target.anon.get(`${mount}/public_key`)).text;
      const userRole = {
        key_type: 'ca',
        allow_user_certificates: true,
        allowed_users: `${me},someone-else`,
        default_user: me,
        allowed_extensions: 'permit-pty,permit-agent-forwarding',
        default_extensions: { 'permit-pty': '' },
        allowed_critical_options: 'force-command,source-address',
        key_id_format: '{{role_name}}-{{token_display_name}}',
        allow_user_key_ids: true,
        ttl: '30m',
        max_ttl: '1h',
      };
      expect((await root.post(`${mount}/roles/users`, userRole)).status).toBe(204);
      const hostRole = {
        key_type: 'ca',
        allow_host_certificates: true,
        allowed_domains: 'example.com',
        allow_subdomains: true,
      };
      expect((await root.post(`${mount}/roles/hosts`, hostRole)).status).toBe(204);
      user = await keygen(dir, 'id_user');
      sshd = await startSshd(dir, {
        trustedUserCaKeys: caPublicKey,
        hostCertificate: async (hostKey) =>
          (
            await sign('hosts', {
              public_key: hostKey,
              cert_type: 'host',
              valid_principals: 'node1.example.com',
            })
          ).body.data.signed_key,
      });
    });
    afterAll(() => sshd?.stop());

    const certFile = (name: string, cert: string): string => {
      const file = path.join(dir, `${name}-cert.pub`);
      writeFileSync(file, cert);
      return file;
    };

    it('signs a user certificate as requested: type, key id, serial, principals, validity, options, extensions', async () => {
      const res = await sign('users', {
        public_key: user.publicKey,
        ttl: '10m',
        critical_options: { 'source-address': '127.0.0.0/8' },
        extensions: { 'permit-pty': '', 'permit-agent-forwarding': '' },
      });
      expect(res.status).toBe(200);
      const { serial_number, signed_key } = res.body.data;
      expect(signed_key).toMatch(/^ssh-ed25519-cert-v01@openssh\.com \S+\n$/);
      const text = await describeCertificate(dir, signed_key);
      expect(text).toContain('Type: ssh-ed25519-cert-v01@openssh.com user certificate');
      expect(text).toContain('Key ID: "users-root"');
      expect(text).toContain(`Serial: ${BigInt(`0x${serial_number}`).toString()}`);
      expect(text).toMatch(new RegExp(`Principals: \\n\\s+${me}\\n`));
      expect(text).toMatch(/Critical Options: \n\s+source-address 127\.0\.0\.0\/8\n/);
      expect(text).toMatch(/Extensions: \n\s+permit-agent-forwarding\n\s+permit-pty\n/);
      const [, from, to] = /Valid: from (\S+) to (\S+)/.exec(text) ?? [];
      expect(Date.parse(`${to}Z`) - Date.parse(`${from}Z`)).toBe((600 + 30) * 1000);
      const second = await sign('users', { public_key: user.publicKey });
      expect(second.body.data.serial_number).not.toBe(serial_number);
      expect(await describeCertificate(dir, second.body.data.signed_key)).toMatch(
        /Extensions: \n\s+permit-pty\n$/,
      );
    });

    it('is accepted by sshd for an allowed principal and refused for another or once expired', async () => {
      const login = async (body: Record<string, unknown>) => {
        const res = await sign('users', { public_key: user.publicKey, ...body });
        expect(res.status).toBe(200);
        return sshLogin({
          port: sshd.port,
          identity: user.path,
          certificate: certFile(uniq('c'), res.body.data.signed_key),
        });
      };
      const ok = await login({});
      expect({ code: ok.code, out: ok.stdout.trim() }).toEqual({ code: 0, out: 'coffer-login-ok' });
      expect((await login({ valid_principals: 'someone-else' })).code).not.toBe(0);
      const short = await sign('users', { public_key: user.publicKey, ttl: '1s' });
      const expired = certFile('expired', short.body.data.signed_key);
      const text = await describeCertificate(dir, short.body.data.signed_key);
      const until = Date.parse(`${/Valid: from \S+ to (\S+)/.exec(text)?.[1] ?? ''}Z`);
      await waitFor(() => Date.now() > until + 1000, { timeoutMs: 10_000 });
      expect((await sshLogin({ port: sshd.port, identity: user.path, certificate: expired })).code).not.toBe(
        0,
      );
      // without the certificate the bare key is not authorized at all
      expect((await sshLogin({ port: sshd.port, identity: user.path })).code).not.toBe(0);
    });

    it('has ssh accept the host certificate through @cert-authority in known_hosts', async () => {
      const knownHosts = path.join(dir, 'known_hosts');
      writeFileSync(knownHosts, `@cert-authority *.example.com ${caPublicKey}`);
      const cert = certFile(
        'login',
        (await sign('users', { public_key: user.publicKey })).body.data.signed_key,
      );
      const trusted = await sshLogin({
        port: sshd.port,
        identity: user.path,
        certificate: cert,
        knownHosts,
        hostAlias: 'node1.example.com',
      });
      expect(trusted.code).toBe(0);
      const other = await sshLogin({
        port: sshd.port,
        identity: user.path,
        certificate: cert,
        knownHosts,
        hostAlias: 'node2.example.com',
      });
      expect(other.code).not.toBe(0);
    });

    it('renders identity templates in allowed_users for the caller, with no comma injection', async () => {
      const auth = uniq('up');
      expect((await root.post(`sys/auth/${auth}`, { type: 'userpass' })).status).toBe(204);
      const policy = uniq('signer');
      await root.put(`sys/policies/acl/${policy}`, {
        policy: `path "${mount}/sign/*" { capabilities = ["update"] }`,
      });
      await root.put(`auth/${auth}/users/alice`, { password: 'pw', token_policies: [policy] });
      const login = (await target.anon.post(`auth/${auth}/login/alice`, { password: 'pw' })).body.auth;
      await root.post(`identity/entity/id/${login.entity_id}`, {
        metadata: { login: me, evil: `${me},intruder` },
      });
      const alice = target.anon.withToken(login.client_token);
      const role = { key_type: 'ca', allow_user_certificates: true, allowed_users_template: true };
      await root.post(`${mount}/roles/tmpl`, {
        ...role,
        allowed_users: 'ops,{{identity.entity.metadata.login}}',
      });
      await root.post(`${mount}/roles/evil`, { ...role, allowed_users: '{{identity.entity.metadata.evil}}' });
      const ok = await sign('tmpl', { public_key: user.publicKey, valid_principals: me }, alice);
      expect(ok.status).toBe(200);
      expect(await describeCertificate(dir, ok.body.data.signed_key)).toContain(
        `Key ID: "vault-${auth}-alice-`,
      );
      await expect400(
        sign('tmpl', { public_key: user.publicKey, valid_principals: 'intruder' }, alice),
        'intruder is not a valid value for valid_principals',
      );
      await expect400(
        sign('evil', { public_key: user.publicKey, valid_principals: 'intruder' }, alice),
        /not a single principal/,
      );
    });

    it('refuses every bad signing request with a 400', async () => {
      const rsa1024 = await keygen(dir, 'rsa1024', 'rsa', 1024);
      const ecdsa = await keygen(dir, 'ecdsa', 'ecdsa', 256);
      await root.post(`${mount}/roles/strict`, {
        key_type: 'ca',
        allow_user_certificates: true,
        allowed_users: me,
        allowed_user_key_lengths: { rsa: 2048, ed25519: 0 },
        max_ttl: '1h',
      });
      const pk = user.publicKey;
      await expect400(
        sign('strict', { public_key: 'ssh-ed25519 not-base64!' }),
        /^failed to parse public_key as SSH key/,
      );
      await expect400(sign('strict', {}), 'missing public_key');
      await expect400(
        sign('strict', { public_key: rsa1024.publicKey }),
        'public_key failed to meet the key requirements: key is of an invalid size: 1024',
      );
      await expect400(
        sign('strict', { public_key: ecdsa.publicKey }),
        'public_key failed to meet the key requirements: key of type ecdsa is not allowed',
      );
      await expect400(
        sign('strict', { public_key: pk, valid_principals: 'intruder' }),
        'intruder is not a valid value for valid_principals',
      );
      await expect400(sign('strict', { public_key: pk }), 'empty valid principals not allowed by role');
      await expect400(
        sign('strict', { public_key: pk, valid_principals: me, extensions: { 'permit-pty': '' } }),
        'extensions [permit-pty] are not on allowed list',
      );
      await expect400(
        sign('users', { public_key: pk, critical_options: { 'no-such': '' } }),
        'critical options not on allowed list: [no-such]',
      );
      await expect400(
        sign('strict', { public_key: pk, valid_principals: me, cert_type: 'both' }),
        "cert_type must be either 'user' or 'host'",
      );
      await expect400(
        sign('strict', { public_key: pk, valid_principals: me, cert_type: 'host' }),
        "cert_type 'host' is not allowed by role",
      );
      await expect400(
        sign('strict', { public_key: pk, valid_principals: me, ttl: '2h' }),
        'ttl is larger than maximum allowed 3600',
      );
      await expect400(
        sign('strict', { public_key: pk, valid_principals: me, key_id: 'mine' }),
        'setting key_id is not allowed by role',
      );
      await expect400(
        sign('hosts', { public_key: pk, cert_type: 'host', valid_principals: 'example.com' }),
        'example.com is not a valid value for valid_principals',
      );
      await expect400(sign('nope', { public_key: pk }), 'Unknown role: nope');
      await expect400(
        root
          .post(`${mount}/roles/signer`, {
            key_type: 'ca',
            allow_user_certificates: true,
            algorithm_signer: 'ssh-rsa',
          })
          .then(() => sign('signer', { public_key: pk, valid_principals: 'x' })),
        /role is not configured|needs an RSA CA key/,
      );
    });
  });

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
