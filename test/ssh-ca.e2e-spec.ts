import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '@coffer/testing';
import { START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';
import {
  currentUser,
  describeCertificate,
  keygen,
  run,
  sshLogin,
  startSshd,
  type Sshd,
} from './support/ssh-peers';
import { expect400, startSshTarget, type SshTarget } from './support/ssh-target';

jest.setTimeout(120_000);
const LABEL = 'ssh-ca';

/** The SSH CA over HTTP, proven by OpenSSH itself: ssh-keygen -L, sshd and ssh. */
describe.each(TARGETS)('%s: ssh certificates', (kind) => {
  let ssh: SshTarget;
  let target: Target;
  let root: ApiClient;
  let dir: string;
  let mount: string;
  const me = currentUser();

  const sign = (role: string, body: Record<string, unknown>, client = root) =>
    client.post(`${mount}/sign/${role}`, body);

  beforeAll(async () => {
    ssh = await startSshTarget(kind, LABEL);
    ({ target, mount, dir } = ssh);
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => ssh?.stop());

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
});
