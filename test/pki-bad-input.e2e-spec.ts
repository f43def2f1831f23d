import { START_TIMEOUT_MS, startTarget, TARGETS, uniq, type ApiClient, type Target } from './support';
import { mountPki, OpensslDir, rootCa, waitForPki } from './pki/pki-peers';

jest.setTimeout(120_000);

/** The CSR with one byte of its signature flipped. */
function tampered(csrPem: string): string {
  const der = Buffer.from(csrPem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
  der[der.length - 3] = (der[der.length - 3] ?? 0) ^ 0xff;
  const b64 = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}

/**
 * Every bad input of the engine answers 400 (or Vault's own answer) with a clear message, and
 * stores nothing: the certificate list holds only the root's certificate at the end.
 */
describe.each(TARGETS)('pki parameters and bad input (%s)', (kind) => {
  let target: Target;
  let root: ApiClient;
  let mount: string;
  let rootSerial: string;
  const ssl = new OpensslDir();

  beforeAll(async () => {
    target = await startTarget(kind);
    root = target.root;
    mount = uniq('pkibad');
    await rootCa(root, mount, { key_type: 'ec', ttl: '100h' });
    rootSerial = (await root.list(`${mount}/certs`)).body.data.keys[0];
    const role = await root.post(`${mount}/roles/web`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      allow_wildcard_certificates: false,
      allow_ip_sans: false,
      max_ttl: '1h',
      key_type: 'ec',
    });
    expect(role.status).toBe(204);
    await root.post(`${mount}/roles/any`, { allow_any_name: true, key_type: 'any', max_ttl: '1000h' });
    await root.post(`${mount}/roles/open`, { allow_any_name: true, key_type: 'ec', no_store: true });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    // nothing a refused request carried was stored
    if (root) expect((await root.list(`${mount}/certs`)).body.data.keys).toEqual([rootSerial]);
    await target?.stop();
  });

  const denied = async (path: string, body: Record<string, unknown>, message: string | RegExp) => {
    const res = await root.post(`${mount}/${path}`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatch(message);
  };

  it.each([
    ['a\u0000b.example.com'],
    ['WWW.EXAMPLE.COM'],
    ['www.example.com.'],
    ['bücher.example.com'],
    ['xn--bcher-kva.example.com'],
    [`${'a'.repeat(290)}.example.com`],
    ['*.example.com'],
    ['www.other.com'],
  ])('denies the common name %j', async (cn) => {
    await denied('issue/web', { common_name: cn }, `common name ${cn} not allowed by this role`);
  });

  it('denies the whole request for one bad name, naming it', async () => {
    await denied(
      'issue/web',
      { common_name: 'a.example.com', alt_names: 'b.example.com,evil.test,c.example.com' },
      'subject alternate name evil.test not allowed by this role',
    );
    await denied(
      'issue/web',
      { common_name: 'a.example.com', ip_sans: '10.0.0.1' },
      /IP Subject Alternative Names are not allowed/,
    );
    await denied(
      'issue/open',
      { common_name: 'a.test', ip_sans: 'not-an-ip' },
      "the value 'not-an-ip' is not a valid IP address",
    );
    await denied(
      'issue/open',
      { common_name: 'a.test', uri_sans: 'spiffe://x/y' },
      /URI Subject Alternative Names are not allowed/,
    );
    await denied('issue/open', { common_name: 'a.test', other_sans: '1.2.3:UTF8:x' }, /expected a semicolon/);
    await denied(
      'issue/open',
      { common_name: 'a.test', other_sans: '1.2.3;UTF8:x' },
      'other SAN OID 1.2.3 not allowed by this role',
    );
    await denied('issue/open', { common_name: '' }, /the common_name field is required/);
  });

  it('clamps a ttl beyond max_ttl (Vault warns) and refuses one beyond the CA', async () => {
    const res = await root.post(`${mount}/issue/any`, {
      common_name: 'long.test',
      ttl: '2000h',
      format: 'pem',
    });
    // the role "any" signs only: a clear refusal before any TTL logic
    expect(res.status).toBe(400);
    await root.post(`${mount}/roles/ttl`, {
      allow_any_name: true,
      key_type: 'ec',
      max_ttl: '1h',
      no_store: true,
    });
    const clamped = await root.post(`${mount}/issue/ttl`, {
      common_name: 'ttl.test',
      ttl: '5h',
      no_store: true,
    });
    expect(clamped.status).toBe(200);
    expect(clamped.body.warnings[0]).toContain('is longer than permitted maxTTL');
    expect(clamped.body.data.expiration - Date.now() / 1000).toBeLessThanOrEqual(3600 + 5);
    await root.post(`${mount}/roles/far`, {
      allow_any_name: true,
      key_type: 'ec',
      max_ttl: '1000h',
      no_store: true,
    });
    await denied(
      'issue/far',
      { common_name: 'far.test', ttl: '500h' },
      /beyond the expiration of the CA certificate/,
    );
  });

  it('refuses CSRs that are not PEM, are badly signed, or ask for a CA on sign', async () => {
    const good = ssl.csr(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=www.example.com');
    await denied('sign/web', { csr: '' }, '"csr" is empty');
    await denied('sign/web', { csr: 'hello' }, 'csr contains no data');
    await denied(
      'sign/web',
      { csr: '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----' },
      /could not be parsed/,
    );
    await denied('sign/web', { csr: tampered(good) }, /request signature invalid/);
    await denied('sign-verbatim', { csr: tampered(good) }, /request signature invalid/);
    const ca = ssl.csr(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=www.example.com', [
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ]);
    await denied('sign/web', { csr: ca }, /requests a CA certificate/);
    await denied('sign-verbatim', { csr: ca }, /CA certificate/);
    const rsa = ssl.csr(['-newkey', 'rsa:2048'], '/CN=www.example.com');
    await denied('sign/web', { csr: rsa }, 'role requires keys of type ec');
    const weak = ssl.csr(['-newkey', 'rsa:1024'], '/CN=weak.test');
    await denied('sign/any', { csr: weak }, 'RSA keys < 2048 bits are unsafe and not supported');
    const wild = ssl.csr(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=*.example.com');
    await denied('sign/web', { csr: wild }, 'common name *.example.com not allowed by this role');
  });

  it('refuses key sizes that do not fit the key type, and bad parameters', async () => {
    await denied('roles/bad', { key_type: 'ec', key_bits: 2048 }, 'unsupported bit length for EC key: 2048');
    await denied(
      'roles/bad',
      { key_type: 'rsa', key_bits: 1024 },
      'unsupported bit length for RSA key: 1024',
    );
    await denied('roles/bad', { key_type: 'dsa' }, 'unknown key type dsa');
    await denied('roles/bad', { key_bits: 'many' }, /Field validation failed.*key_bits/);
    await denied('roles/bad', { ttl: '2h', max_ttl: '1h' }, /"ttl" value must be less than "max_ttl" value/);
    expect((await root.get(`${mount}/roles/bad`)).status).toBe(404);
    const fresh = uniq('pkibadroot');
    await mountPki(root, fresh);
    await waitForPki(root, fresh);
    for (const [params, message] of [
      [{ key_type: 'rsa', key_bits: 1024 }, 'unsupported bit length for RSA key: 1024'],
      [{ key_type: 'ec', key_bits: 255 }, 'unsupported bit length for EC key: 255'],
      [{ format: 'xml' }, 'the "format" path parameter must be "pem", "der", or "pem_bundle"'],
    ] as const) {
      const res = await root.post(`${fresh}/root/generate/internal`, { common_name: 'r', ...params });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toBe(message);
    }
    expect((await root.post(`${fresh}/root/generate/bogus`, { common_name: 'r' })).status).toBe(404);
    expect((await root.get(`${fresh}/cert/ca`)).status).toBe(404);
    const noCa = await root.post(`${fresh}/roles/r`, { allow_any_name: true });
    expect(noCa.status).toBe(204);
    const issue = await root.post(`${fresh}/issue/r`, { common_name: 'x.test' });
    expect(issue.status).toBe(400);
    expect(issue.body.errors[0]).toBe('backend must be configured with a CA certificate/key');
    expect((await root.post(`${fresh}/intermediate/set-signed`, { certificate: 'junk' })).status).toBe(400);
    expect((await root.post(`${fresh}/config/ca`, { pem_bundle: 'junk' })).status).toBe(400);
  });

  it('refuses unknown roles and serials, and revoking the CA', async () => {
    await denied('issue/nope', { common_name: 'a.example.com' }, 'unknown role: nope');
    await denied('revoke', { serial_number: 'zz:top' }, /not found/);
    await denied('revoke', { serial_number: '01:02:03' }, 'certificate with serial 01:02:03 not found.');
    await denied('revoke', { serial_number: rootSerial }, 'adding CA to CRL is not allowed');
  });

  it("refuses config/crl's unified revocation settings without what they need, in Vault's words", async () => {
    await denied(
      'config/crl',
      { unified_crl_on_existing_paths: true },
      'unified_crl_on_existing_paths cannot be enabled if unified_crl is disabled',
    );
    await denied(
      'config/crl',
      { unified_crl: true },
      'unified_crl=true requires auto_rebuild=true, as unified CRLs cannot be rebuilt on every revocation.',
    );
    await denied(
      'config/crl',
      { cross_cluster_revocation: true },
      'Global, cross-cluster revocation queue cannot be enabled when auto rebuilding is disabled as the local cluster may not have the certificate entry!',
    );
    await denied(
      'config/crl',
      { auto_rebuild: true, auto_rebuild_grace_period: '72h' },
      'CRL auto-rebuilding grace period (72h) must be strictly shorter than CRL expiry (72h) value when auto-rebuilding of CRLs is enabled',
    );
    // nothing was written: the defaults stand, and unified-crl has nothing to serve
    expect((await root.get(`${mount}/config/crl`)).body.data).toMatchObject({
      auto_rebuild: false,
      unified_crl: false,
    });
    expect((await root.get(`${mount}/unified-crl`)).status).toBe(204);
  });

  it('keeps roles with every default, lists and deletes them', async () => {
    const mount = uniq('pkirole');
    await mountPki(root, mount);
    await waitForPki(root, mount);
    expect((await root.post(`${mount}/roles/plain`, {})).status).toBe(204);
    const read = await root.get(`${mount}/roles/plain`);
    expect(read.body.data).toMatchObject({
      ttl: 0,
      max_ttl: 0,
      allow_localhost: true,
      allowed_domains: [],
      allow_bare_domains: false,
      allow_subdomains: false,
      allow_glob_domains: false,
      allow_any_name: false,
      enforce_hostnames: true,
      allow_ip_sans: true,
      allowed_uri_sans: [],
      allowed_other_sans: [],
      server_flag: true,
      client_flag: true,
      code_signing_flag: false,
      email_protection_flag: false,
      key_type: 'rsa',
      key_bits: 2048,
      key_usage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
      ext_key_usage: [],
      ext_key_usage_oids: [],
      use_csr_common_name: true,
      not_before_duration: 30,
      generate_lease: false,
      no_store: false,
      require_cn: true,
    });
    await root.post(`${mount}/roles/ec`, { key_type: 'ec', key_bits: '384', ttl: '1h', max_ttl: 7200 });
    expect((await root.get(`${mount}/roles/ec`)).body.data).toMatchObject({
      key_bits: 384,
      ttl: 3600,
      max_ttl: 7200,
    });
    expect((await root.list(`${mount}/roles`)).body.data.keys).toEqual(['ec', 'plain']);
    expect((await root.delete(`${mount}/roles/ec`)).status).toBe(204);
    expect((await root.get(`${mount}/roles/ec`)).status).toBe(404);
  });

  it('answers 429 with Retry-After at once when the RSA key generation queue is full, and other engines keep serving', async () => {
    await root.post(`${mount}/roles/rsa`, {
      allow_any_name: true,
      key_type: 'rsa',
      key_bits: 2048,
      no_store: true,
    });
    const burst = Array.from({ length: 60 }, () =>
      root.post(`${mount}/issue/rsa`, { common_name: 'rsa.test', ttl: '1h' }),
    );
    const kv = await root.get('sys/mounts');
    expect(kv.status).toBe(200);
    const statuses = (await Promise.all(burst)).map((r) => {
      if (r.status === 429) {
        expect(r.body.errors[0]).toMatch(/too many key generations/);
        // Vault's API clients wait Retry-After before they try again
        expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
      return r.status;
    });
    expect([...new Set(statuses)].sort()).toEqual([200, 429]);
  });
});
