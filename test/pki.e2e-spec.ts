import { X509Certificate } from 'node:crypto';
import { START_TIMEOUT_MS, startTarget, TARGETS, uniq, type ApiClient, type Target } from './support';
import { handshake, mountPki, OpensslDir, rawBytes, rootCa, waitForPki } from './pki/pki-peers';
import { waitFor } from '@coffer/testing';

jest.setTimeout(120_000);

describe.each(TARGETS)('pki engine (%s)', (kind) => {
  let target: Target;
  let root: ApiClient;
  const ssl = new OpensslDir();

  beforeAll(async () => {
    target = await startTarget(kind);
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
  });

  it('mounts pki/ by default in dev mode, and the type is mountable everywhere', async () => {
    const mounts = await root.get('sys/mounts');
    expect(mounts.body.data['pki/']?.type).toBe(kind === 'dev' ? 'pki' : undefined);
    const mount = uniq('pkimnt');
    await mountPki(root, mount);
    await waitForPki(root, mount);
    expect((await root.get(`${mount}/cert/ca`)).status).toBe(404);
    expect((await target.anon.get(`${mount}/ca/pem`)).status).toBe(204);
  });

  it.each([
    ['rsa', 2048],
    ['ec', 256],
    ['ec', 384],
    ['ed25519', 0],
  ])(
    'builds root -> intermediate -> leaf chains with %s %s keys that openssl verifies, and revokes',
    async (keyType, bits) => {
      const keys = { key_type: keyType, key_bits: bits };
      const rootMount = uniq('pkiroot');
      const intMount = uniq('pkiint');
      const rootPem = await rootCa(root, rootMount, keys);
      await mountPki(root, intMount);
      await waitForPki(root, intMount);
      const gen = await root.post(`${intMount}/intermediate/generate/internal`, {
        common_name: 'Int CA',
        ...keys,
      });
      expect(gen.status).toBe(200);
      expect(gen.body.data.csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
      expect(gen.body.data.private_key).toBeUndefined();
      const signed = await root.post(`${rootMount}/root/sign-intermediate`, {
        csr: gen.body.data.csr,
        common_name: 'Int CA',
        ttl: '43800h',
      });
      expect(signed.status).toBe(200);
      const intPem = signed.body.data.certificate as string;
      expect(signed.body.data.issuing_ca).toBe(rootPem);
      expect(
        (await root.post(`${intMount}/intermediate/set-signed`, { certificate: `${intPem}\n${rootPem}` }))
          .status,
      ).toBe(204);
      expect(
        (
          await root.post(`${intMount}/roles/leaf`, {
            allowed_domains: 'example.com',
            allow_subdomains: true,
            max_ttl: '24h',
            ...keys,
          })
        ).status,
      ).toBe(204);
      const leaf = await root.post(`${intMount}/issue/leaf`, { common_name: 'svc.example.com', ttl: '1h' });
      expect(leaf.status).toBe(200);
      expect(leaf.body.data.ca_chain).toEqual([intPem, rootPem]);
      expect(leaf.body.data.private_key_type).toBe(keyType);
      const leafPem = leaf.body.data.certificate as string;
      expect(ssl.verify(rootPem, leafPem, intPem)).toMatchObject({ ok: true });

      const chain = await target.anon.get(`${intMount}/ca_chain`);
      expect(chain.text).toContain(intPem);
      expect(chain.text).toContain(rootPem);

      const serial = leaf.body.data.serial_number as string;
      expect(serial).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2})+$/);
      const revoked = await root.post(`${intMount}/revoke`, { serial_number: serial.replace(/:/g, '-') });
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.revocation_time).toBeGreaterThan(0);
      const crl = await rawBytes(target.baseUrl, `${intMount}/crl`);
      expect(crl.type).toBe('application/pkix-crl');
      const check = ssl.verify(rootPem, leafPem, intPem, ssl.crlToPem(crl.body));
      expect(check.ok).toBe(false);
      expect(check.out).toContain('certificate revoked');
      const read = await target.anon.get(`${intMount}/cert/${serial}`);
      expect(read.body.data).toMatchObject({ certificate: leafPem });
      expect(read.body.data.revocation_time).toBe(revoked.body.data.revocation_time);
    },
  );

  it('writes the SANs, usages, policies and validity asked for (openssl x509 -text)', async () => {
    const mount = uniq('pkitext');
    await rootCa(root, mount, { key_type: 'ec' });
    expect(
      (
        await root.post(`${mount}/roles/full`, {
          allowed_domains: ['example.com'],
          allow_subdomains: true,
          allow_bare_domains: true,
          allowed_uri_sans: 'spiffe://example/*',
          allowed_other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:*@example.com',
          key_usage: ['digitalsignature', 'KeyEncipherment'],
          ext_key_usage: ['ServerAuth', 'codesigning'],
          ext_key_usage_oids: '1.3.6.1.5.5.7.3.9',
          client_flag: false,
          policy_identifiers: '1.3.6.1.4.1.44947.1.1.1',
          organization: 'Acme',
          key_type: 'ec',
        })
      ).status,
    ).toBe(204);
    const before = Math.floor(Date.now() / 1000);
    const res = await root.post(`${mount}/issue/full`, {
      common_name: 'svc.example.com',
      alt_names: 'alt.example.com,ops@example.com',
      ip_sans: '10.0.0.1,::1',
      uri_sans: 'spiffe://example/svc',
      other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:dev@example.com',
      ttl: '2h',
    });
    expect(res.body.errors).toBeUndefined();
    const text = ssl.text(res.body.data.certificate);
    for (const expected of [
      'DNS:svc.example.com',
      'DNS:alt.example.com',
      'email:ops@example.com',
      'IP Address:10.0.0.1',
      'IP Address:0:0:0:0:0:0:0:1',
      'URI:spiffe://example/svc',
      'othername:',
      'Digital Signature, Key Encipherment',
      'TLS Web Server Authentication, Code Signing, OCSP Signing',
      'Policy: 1.3.6.1.4.1.44947.1.1.1',
      'O = Acme, CN = svc.example.com',
    ])
      expect(text).toContain(expected);
    expect(text).not.toContain('TLS Web Client Authentication');
    const cert = new X509Certificate(res.body.data.certificate);
    const notAfter = Math.floor(new Date(cert.validTo).getTime() / 1000);
    expect(notAfter).toBe(res.body.data.expiration);
    expect(notAfter - before).toBeGreaterThanOrEqual(7200 - 5);
    expect(notAfter - before).toBeLessThanOrEqual(7200 + 5);
    expect(before - Math.floor(new Date(cert.validFrom).getTime() / 1000)).toBeGreaterThanOrEqual(25);
  });

  it('completes a TLS handshake with an issued certificate, and not after the CA is replaced', async () => {
    const mount = uniq('pkitls');
    const caPem = await rootCa(root, mount, { key_type: 'ec' });
    await root.post(`${mount}/roles/server`, {
      allow_localhost: true,
      allowed_domains: 'localhost',
      key_type: 'ec',
    });
    const issued = await root.post(`${mount}/issue/server`, {
      common_name: 'localhost',
      ip_sans: '127.0.0.1',
    });
    expect(issued.status).toBe(200);
    const pems = { cert: issued.body.data.certificate, key: issued.body.data.private_key };
    expect(await handshake(pems, caPem)).toEqual({ ok: true });
    expect((await root.delete(`${mount}/root`)).status).toBe(204);
    const again = await root.post(`${mount}/root/generate/internal`, {
      common_name: 'new root',
      key_type: 'ec',
    });
    expect(again.status).toBe(200);
    const result = await handshake(pems, again.body.data.certificate);
    expect(result.ok).toBe(false);
  });

  it('signs openssl req CSRs through sign/:role and sign-verbatim', async () => {
    const mount = uniq('pkicsr');
    const caPem = await rootCa(root, mount);
    await root.post(`${mount}/roles/csr`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'any',
    });
    const rsaCsr = ssl.csr(['-newkey', 'rsa:2048'], '/CN=api.example.com/O=Ignored', [
      '-addext',
      'subjectAltName=DNS:api.example.com,DNS:alt.example.com',
    ]);
    const signed = await root.post(`${mount}/sign/csr`, { csr: rsaCsr });
    expect(signed.status).toBe(200);
    expect(signed.body.data.private_key).toBeUndefined();
    expect(ssl.verify(caPem, signed.body.data.certificate)).toMatchObject({ ok: true });
    const text = ssl.text(signed.body.data.certificate);
    expect(text).toContain('DNS:api.example.com, DNS:alt.example.com');
    expect(text).not.toContain('Ignored');

    const ecCsr = ssl.csr(
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
      '/CN=anything goes/O=Acme/C=DE',
    );
    const verbatim = await root.post(`${mount}/sign-verbatim`, { csr: ecCsr, ttl: '1h' });
    expect(verbatim.status).toBe(200);
    expect(ssl.verify(caPem, verbatim.body.data.certificate)).toMatchObject({ ok: true });
    expect(ssl.text(verbatim.body.data.certificate)).toContain(
      'Subject: CN = anything goes, O = Acme, C = DE',
    );
    const withRole = await root.post(`${mount}/sign-verbatim/csr`, { csr: ecCsr });
    expect(withRole.status).toBe(200);
    const certs = await root.list(`${mount}/certs`);
    for (const s of [signed, verbatim, withRole])
      expect(certs.body.data.keys).toContain(s.body.data.serial_number);
  });

  it('answers formats der, pem_bundle and pkcs8 keys, and the public reads', async () => {
    const mount = uniq('pkifmt');
    const caPem = await rootCa(root, mount, { key_type: 'ec', key_bits: 224 });
    await root.post(`${mount}/roles/r`, { allow_any_name: true, key_type: 'ec', key_bits: 521 });
    const der = await root.post(`${mount}/issue/r`, { common_name: 'der.test', format: 'der' });
    expect(der.status).toBe(200);
    const derCert = new X509Certificate(Buffer.from(der.body.data.certificate, 'base64'));
    expect(derCert.subject).toBe('CN=der.test');
    expect(Buffer.from(der.body.data.private_key, 'base64').length).toBeGreaterThan(100);
    const bundle = await root.post(`${mount}/issue/r`, {
      common_name: 'b.test',
      format: 'pem_bundle',
      private_key_format: 'pkcs8',
    });
    expect(bundle.body.data.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(bundle.body.data.certificate.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(bundle.body.data.certificate).toContain('BEGIN PRIVATE KEY');
    const pem = await root.post(`${mount}/issue/r`, { common_name: 'p.test' });
    expect(pem.body.data.private_key).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(ssl.verify(caPem, pem.body.data.certificate)).toMatchObject({ ok: true });

    const caDer = await rawBytes(target.baseUrl, `${mount}/ca`);
    expect(caDer.type).toBe('application/pkix-cert');
    expect(new X509Certificate(caDer.body).toString().trim()).toBe(caPem.trim());
    expect((await target.anon.get(`${mount}/ca/pem`)).text).toBe(caPem);
    expect((await target.anon.get(`${mount}/cert/ca`)).body.data.certificate).toBe(caPem);
    expect((await target.anon.get(`${mount}/crl/pem`)).text).toMatch(/^-----BEGIN X509 CRL-----/);
    expect((await target.anon.get(`${mount}/cert/crl`)).body.data.certificate).toMatch(
      /^-----BEGIN X509 CRL-----/,
    );
    expect((await target.anon.get(`${mount}/cert/ca_chain`)).body.data.certificate).toContain(caPem);
    expect((await target.anon.get(`${mount}/cert/00:11`)).status).toBe(404);
    expect((await target.anon.list(`${mount}/certs`)).status).toBe(403);
  });

  it('writes config/urls into certificates; config/crl, crl/rotate and tidy', async () => {
    const mount = uniq('pkicfg');
    const caPem = await rootCa(root, mount, { key_type: 'ec' });
    const urls = {
      issuing_certificates: `${target.baseUrl}/v1/${mount}/ca`,
      crl_distribution_points: [`${target.baseUrl}/v1/${mount}/crl`],
      ocsp_servers: [],
    };
    expect((await root.post(`${mount}/config/urls`, urls)).status).toBe(204);
    expect((await root.get(`${mount}/config/urls`)).body.data).toEqual({
      ...urls,
      issuing_certificates: [urls.issuing_certificates],
    });
    expect((await root.get(`${mount}/config/crl`)).body.data).toEqual({
      expiry: '72h',
      disable: false,
      auto_rebuild: false,
      auto_rebuild_grace_period: '12h',
      cross_cluster_revocation: false,
      unified_crl: false,
      unified_crl_on_existing_paths: false,
    });
    expect((await root.post(`${mount}/config/crl`, { expiry: '48h' })).status).toBe(204);
    expect((await root.post(`${mount}/config/crl`, { expiry: 'soon' })).status).toBe(400);
    await root.post(`${mount}/roles/r`, { allow_any_name: true, key_type: 'ec' });
    const issued = await root.post(`${mount}/issue/r`, { common_name: 'urls.test' });
    const text = ssl.text(issued.body.data.certificate);
    expect(text).toContain(`URI:${target.baseUrl}/v1/${mount}/crl`);
    expect(text).toContain(`CA Issuers - URI:${target.baseUrl}/v1/${mount}/ca`);
    expect((await root.get(`${mount}/crl/rotate`)).body.data).toEqual({ success: true });
    await root.post(`${mount}/revoke`, { serial_number: issued.body.data.serial_number });
    const tidy = await root.post(`${mount}/tidy`, { tidy_cert_store: true, tidy_revoked_certs: true });
    expect(tidy.status).toBe(202);
    expect(tidy.body.warnings?.[0]).toContain('Tidy operation successfully started');
    // not expired: still listed and still on the CRL
    expect((await root.list(`${mount}/certs`)).body.data.keys).toContain(issued.body.data.serial_number);
    const crlText = ssl.run([
      'crl',
      '-noout',
      '-text',
      '-in',
      ssl.write('c.pem', (await target.anon.get(`${mount}/crl/pem`)).text),
    ]);
    expect(crlText.out.toUpperCase()).toContain(
      issued.body.data.serial_number.replace(/:/g, '').toUpperCase(),
    );
    expect(ssl.verify(caPem, issued.body.data.certificate)).toMatchObject({ ok: true });
  });

  it('revokes a generate_lease certificate when its lease is revoked', async () => {
    const mount = uniq('pkilease');
    await rootCa(root, mount, { key_type: 'ec' });
    await root.post(`${mount}/roles/leased`, {
      allow_any_name: true,
      key_type: 'ec',
      generate_lease: true,
      ttl: '1h',
    });
    const issued = await root.post(`${mount}/issue/leased`, { common_name: 'lease.test' });
    expect(issued.status).toBe(200);
    expect(issued.body.lease_id).toMatch(new RegExp(`^${mount}/issue/leased/`));
    expect(issued.body.lease_duration).toBeGreaterThan(3500);
    expect(issued.body.renewable).toBe(false);
    const serial = issued.body.data.serial_number as string;
    expect((await root.put('sys/leases/revoke', { lease_id: issued.body.lease_id })).status).toBe(204);
    await waitFor(async () => (await root.get(`${mount}/cert/${serial}`)).body.data.revocation_time > 0, {
      timeoutMs: 15_000,
      message: 'certificate revoked with its lease',
    });
  });

  it('leases a generated root; revoking the lease puts the root on the CRL it signs', async () => {
    const mount = uniq('pkirootlease');
    await mountPki(root, mount);
    await waitForPki(root, mount);
    const gen = await root.post(`${mount}/root/generate/internal`, {
      common_name: 'leased root',
      key_type: 'ec',
      ttl: '2h',
    });
    expect(gen.status).toBe(200);
    expect(gen.body.lease_id).toMatch(new RegExp(`^${mount}/root/generate/internal/`));
    expect(gen.body.lease_duration).toBeGreaterThan(7000);
    expect(gen.body.lease_duration).toBeLessThanOrEqual(7200);
    expect(gen.body.renewable).toBe(false);
    const caPem = gen.body.data.certificate as string;
    const hex = (gen.body.data.serial_number as string).replace(/:/g, '').toUpperCase();
    const lookup = await root.put('sys/leases/lookup', { lease_id: gen.body.lease_id });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toMatchObject({ id: gen.body.lease_id, renewable: false });
    // only the lease may revoke the CA: pki/revoke still refuses it, as Vault does
    const direct = await root.post(`${mount}/revoke`, { serial_number: gen.body.data.serial_number });
    expect(direct.status).toBe(400);
    expect(direct.body.errors).toEqual(['adding CA to CRL is not allowed']);
    const crlText = async () =>
      ssl.run([
        'crl',
        '-noout',
        '-text',
        '-in',
        ssl.write('rc.pem', (await target.anon.get(`${mount}/crl/pem`)).text),
      ]).out;
    expect(await crlText()).not.toContain(hex);
    for (let i = 0; i < 2; i++)
      expect((await root.put('sys/leases/revoke', { lease_id: gen.body.lease_id })).status).toBe(204);
    await waitFor(async () => (await crlText()).toUpperCase().includes(hex), {
      timeoutMs: 15_000,
      message: 'root serial on its own CRL',
    });
    const crlPem = (await target.anon.get(`${mount}/crl/pem`)).text;
    expect(
      ssl.run(['crl', '-noout', '-CAfile', ssl.write('rca.pem', caPem), '-in', ssl.write('rc2.pem', crlPem)])
        .ok,
    ).toBe(true);
    expect(
      (await root.get(`${mount}/cert/${gen.body.data.serial_number}`)).body.data.revocation_time,
    ).toBeGreaterThan(0);
    expect((await root.put('sys/leases/lookup', { lease_id: gen.body.lease_id })).status).toBe(400);
    // the single-issuer CA keeps signing, as Vault's did
    await root.post(`${mount}/roles/after`, { allow_any_name: true, key_type: 'ec' });
    expect((await root.post(`${mount}/issue/after`, { common_name: 'after.test', ttl: '10m' })).status).toBe(
      200,
    );
  });

  it('gives no lease for intermediate/generate, set-signed or config/ca', async () => {
    const rootMount = uniq('pkinolr');
    const intMount = uniq('pkinoli');
    const rootPem = await rootCa(root, rootMount, { key_type: 'ec' });
    await mountPki(root, intMount);
    await waitForPki(root, intMount);
    const gen = await root.post(`${intMount}/intermediate/generate/exported`, {
      common_name: 'I',
      key_type: 'ec',
    });
    expect(gen.status).toBe(200);
    expect(gen.body.lease_id).toBe('');
    const signed = await root.post(`${rootMount}/root/sign-intermediate`, {
      csr: gen.body.data.csr,
      common_name: 'I',
      ttl: '1h',
    });
    expect(signed.status).toBe(200);
    expect(signed.body.lease_id).toBe('');
    const set = await root.post(`${intMount}/intermediate/set-signed`, {
      certificate: signed.body.data.certificate,
    });
    expect(set.status).toBe(204);
    const bundle = `${gen.body.data.private_key}\n${signed.body.data.certificate}\n${rootPem}`;
    expect((await root.post(`${intMount}/config/ca`, { pem_bundle: bundle })).status).toBe(204);
  });

  it("refuses to overwrite a CA: Vault's 200 with a warning, nothing replaced", async () => {
    const mount = uniq('pkitwice');
    const caPem = await rootCa(root, mount, { key_type: 'ec' });
    const again = await root.post(`${mount}/root/generate/exported`, {
      common_name: 'other',
      key_type: 'ec',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toBeNull();
    expect(again.body.warnings[0]).toBe(
      `Refusing to generate a root certificate over an existing root certificate. If you really want to destroy the original root certificate, please issue a delete against ${mount}/root.`,
    );
    expect((await target.anon.get(`${mount}/ca/pem`)).text).toBe(caPem);
  });

  it('imports a CA with config/ca, re-signs a self-issued CA, and honours exclude_cn_from_sans', async () => {
    const exporter = uniq('pkiexp');
    await mountPki(root, exporter);
    await waitForPki(root, exporter);
    const exported = await root.post(`${exporter}/root/generate/exported`, {
      common_name: 'Exported Root',
      key_type: 'ec',
      ttl: '8760h',
    });
    expect(exported.body.data.private_key).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(exported.body.data.private_key_type).toBe('ec');
    const rootPem = exported.body.data.certificate as string;

    const importer = uniq('pkiimp');
    await mountPki(root, importer);
    await waitForPki(root, importer);
    const bundle = `${exported.body.data.private_key}\n${rootPem}`;
    expect((await root.post(`${importer}/config/ca`, { pem_bundle: bundle })).status).toBe(204);
    expect((await target.anon.get(`${importer}/ca/pem`)).text).toBe(rootPem);
    await root.post(`${importer}/roles/r`, {
      allow_any_name: true,
      key_type: 'ec',
      basic_constraints_valid_for_non_ca: true,
    });
    const leaf = await root.post(`${importer}/issue/r`, {
      common_name: 'only-cn.test',
      exclude_cn_from_sans: true,
    });
    expect(ssl.verify(rootPem, leaf.body.data.certificate)).toMatchObject({ ok: true });
    const text = ssl.text(leaf.body.data.certificate);
    expect(text).not.toContain('DNS:only-cn.test');
    expect(text).toContain('CA:FALSE');

    const other = uniq('pkiself');
    const selfIssued = await rootCa(root, other, { key_type: 'ec' });
    const resigned = await root.post(`${importer}/root/sign-self-issued`, { certificate: selfIssued });
    expect(resigned.status).toBe(200);
    expect(resigned.body.data.issuing_ca).toBe(rootPem);
    expect(ssl.verify(rootPem, resigned.body.data.certificate)).toMatchObject({ ok: true });
    expect(ssl.text(resigned.body.data.certificate)).toContain(`Subject: CN = ${other} root`);
    const notSelf = await root.post(`${importer}/root/sign-self-issued`, {
      certificate: leaf.body.data.certificate,
    });
    expect(notSelf.status).toBe(400);
  });
});
