import { waitFor, historyInstant } from '@coffer/testing';
import {
  replicasInSync,
  uniq,
  type ApiClient,
  type DevServer,
  activateSecondary,
  startReplicatingDevServer,
} from './support';
import { OpensslDir, rawBytes, rootCa } from './pki/pki-peers';

jest.setTimeout(600_000);

/** Polls a read until it answers 200 (the write has streamed and been replayed there). */
function served(client: ApiClient, path: string, headers: Record<string, string> = {}) {
  return waitFor(
    async () => {
      const res = await client.get(path, { headers });
      return res.status === 200 ? res : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100, message: `${path} served` },
  );
}

/** sys/history/state of a path at `at`: what of it both clusters should answer alike. */
async function historyAt(client: ApiClient, path: string, at: string) {
  const res = await client.get(`sys/history/state/${path}`, { query: { at } });
  return { status: res.status, state: res.body.data?.state, engineWal: res.body.data?.engine_wal };
}

/**
 * Three dev servers: a primary of both sets, its performance secondary and its DR secondary. The
 * primary's pki mount (CA, role) is replayed on both; the performance secondary forwards role
 * writes and issues locally; the DR secondary, promoted, is the same CA.
 */
describe('pki on replication secondaries (dev servers)', () => {
  let primary: DevServer;
  let perf: DevServer;
  let dr: DevServer;
  const ssl = new OpensslDir();
  const mount = uniq('pkirepl');
  let caPem = '';
  /** the certificate the performance secondary issued (and revoked) itself */
  let perfLeaf = { serial: '', certificate: '' };
  /** before the role was written on the primary, and after */
  let beforeRole = '';
  let afterRole = '';
  /** the primary's sys/history/state of the role at those instants (it is fenced once DR is promoted) */
  const primaryRoleHistory: Array<Awaited<ReturnType<typeof historyAt>>> = [];

  beforeAll(async () => {
    const boot = startReplicatingDevServer;
    // one after the other: three dev servers booting at once on a busy machine miss the banner
    primary = await boot();
    perf = await boot();
    dr = await boot();
    expect((await primary.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    expect((await primary.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(primary.client, perf.client, 'performance', 'perf-pki');
    await activateSecondary(primary.client, dr.client, 'dr', 'dr-pki');
    caPem = await rootCa(primary.client, mount, { key_type: 'ec' });
    beforeRole = await historyInstant();
    const role = await primary.client.post(`${mount}/roles/web`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      max_ttl: '24h',
    });
    expect(role.status).toBe(204);
    afterRole = await historyInstant();
  }, 600_000);
  afterAll(async () => {
    await Promise.all([primary?.stop(), perf?.stop(), dr?.stop()]);
  });

  it("the performance secondary serves the primary's CA and role; a role written through it lands on the primary", async () => {
    const ca = await served(perf.client, `${mount}/ca/pem`);
    expect(ca.text).toBe(caPem);
    const role = await served(perf.client, `${mount}/roles/web`);
    expect(role.body.data).toEqual((await primary.client.get(`${mount}/roles/web`)).body.data);
    // its history: the primary's events replicated, at the primary's times (404 before the role)
    for (const path of [`${mount}/roles/web`, `${mount}/cert/ca`]) {
      for (const at of [beforeRole, afterRole]) {
        const theirs = await historyAt(primary.client, path, at);
        expect(await historyAt(perf.client, path, at)).toEqual(theirs);
        if (path.endsWith('/web')) primaryRoleHistory.push(theirs);
      }
    }
    expect((await historyAt(perf.client, `${mount}/roles/web`, beforeRole)).status).toBe(404);
    expect((await historyAt(perf.client, `${mount}/roles/web`, afterRole)).state).toEqual(role.body.data);

    // forwarded: it runs on the primary, whose index the secondary's read waits for
    const written = await perf.client.post(`${mount}/roles/api`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      ttl: '2h',
    });
    expect(written.status).toBe(204);
    const index = written.headers.get('x-vault-index') ?? '';
    expect(index).not.toBe('');
    const onPrimary = await primary.client.get(`${mount}/roles/api`);
    expect([onPrimary.status, onPrimary.body.data?.ttl]).toEqual([200, 7200]);
    const local = await served(perf.client, `${mount}/roles/api`, { 'X-Vault-Index': index });
    expect(local.body.data.ttl).toBe(7200);

    // asked not to forward: the replicated CA and roles are read-only there
    const kept = await perf.client.post(
      `${mount}/roles/kept`,
      { allow_any_name: true },
      { headers: { 'X-Vault-No-Request-Forwarding': 'true' } },
    );
    expect([kept.status, kept.body.errors]).toEqual([400, ['cannot write to readonly storage']]);
  });

  it("issues on the performance secondary, locally, with the primary's CA (openssl verifies it)", async () => {
    const leaf = await perf.client.post(`${mount}/issue/api`, { common_name: 'svc.example.com' });
    expect(leaf.status).toBe(200);
    expect(leaf.body.data.issuing_ca).toBe(caPem);
    expect(ssl.verify(caPem, leaf.body.data.certificate as string)).toMatchObject({ ok: true });
    const serial = leaf.body.data.serial_number as string;
    perfLeaf = { serial, certificate: leaf.body.data.certificate as string };
    // the certificate store is the secondary's own (Vault keeps certs/ local): not on the primary
    expect((await perf.client.get(`${mount}/cert/${serial}`)).status).toBe(200);
    expect((await primary.client.get(`${mount}/cert/${serial}`)).status).toBe(404);
    // revoked there, on its own CRL, signed by the primary's CA
    expect((await perf.client.post(`${mount}/revoke`, { serial_number: serial })).status).toBe(200);
    const crl = await perf.client.get(`${mount}/crl/pem`);
    expect(crl.status).toBe(200);
    expect(ssl.verify(caPem, leaf.body.data.certificate as string, undefined, crl.text)).toMatchObject({
      ok: false,
    });
  });

  /** The DER CRL at `path` once openssl lists `serial` on it; its signature checked against the CA. */
  async function crlListing(server: DevServer, path: string, serial: string): Promise<string> {
    const hex = serial.replace(/:/g, '').replace(/^0+/, '').toUpperCase();
    return waitFor(
      async () => {
        const crl = await rawBytes(server.baseUrl, path);
        if (crl.status !== 200) return undefined;
        const der = ssl.write('listing.der', crl.body);
        const text = ssl.run(['crl', '-inform', 'DER', '-text', '-noout', '-in', der]);
        if (!text.ok || !text.out.includes(hex)) return undefined;
        const checked = ssl.run([
          'crl',
          '-inform',
          'DER',
          '-in',
          der,
          '-noout',
          '-CAfile',
          ssl.write('ca.pem', caPem),
        ]);
        expect(checked.out).toContain('verify OK');
        return text.out;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: `${path} lists ${serial}` },
    );
  }

  it('unified CRL: a revocation on the performance secondary is on both clusters’ unified CRL; cross-cluster revocation; existing paths', async () => {
    const refused = await primary.client.post(`${mount}/config/crl`, { unified_crl_on_existing_paths: true });
    expect([refused.status, refused.body.errors]).toEqual([
      400,
      ['unified_crl_on_existing_paths cannot be enabled if unified_crl is disabled'],
    ]);
    const enabled = await primary.client.post(`${mount}/config/crl`, {
      auto_rebuild: true,
      unified_crl: true,
      cross_cluster_revocation: true,
    });
    expect(enabled.status).toBe(204);
    await waitFor(
      async () => (await perf.client.get(`${mount}/config/crl`)).body.data?.unified_crl === true,
      {
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    );

    // revoked on the secondary: its unified entry is recorded on the primary and streams back
    const local = await perf.client.post(`${mount}/issue/api`, { common_name: 'unified.example.com' });
    const localSerial = local.body.data.serial_number as string;
    expect((await perf.client.post(`${mount}/revoke`, { serial_number: localSerial })).status).toBe(200);
    await crlListing(primary, `${mount}/unified-crl`, localSerial);
    await crlListing(perf, `${mount}/unified-crl`, localSerial);
    const own = ssl.run([
      'crl',
      '-inform',
      'DER',
      '-text',
      '-noout',
      '-in',
      ssl.write('own.der', (await rawBytes(primary.baseUrl, `${mount}/crl`)).body),
    ]);
    expect(own.out).not.toContain(localSerial.replace(/:/g, '').replace(/^0+/, '').toUpperCase());

    // asked on the primary, which never saw it: queued, then revoked by the secondary that issued it
    const remote = await perf.client.post(`${mount}/issue/api`, { common_name: 'remote.example.com' });
    const remoteSerial = remote.body.data.serial_number as string;
    const pending = await primary.client.post(`${mount}/revoke`, { serial_number: remoteSerial });
    expect([pending.status, pending.body.data]).toEqual([200, { state: 'pending' }]);
    expect(pending.body.warnings?.[0]).toMatch(/^Revocation request was not found on this present node/);
    await waitFor(
      async () => (await perf.client.get(`${mount}/cert/${remoteSerial}`)).body.data?.revocation_time > 0,
      { timeoutMs: 60_000, intervalMs: 200, message: 'revoked on the issuing secondary' },
    );
    await crlListing(primary, `${mount}/unified-crl`, remoteSerial);
    const pem = await primary.client.get(`${mount}/unified-crl/pem`);
    expect(pem.text).toMatch(/^-----BEGIN X509 CRL-----/);

    // the plain CRL paths serve the unified CRL
    expect(
      (await primary.client.post(`${mount}/config/crl`, { unified_crl_on_existing_paths: true })).status,
    ).toBe(204);
    await crlListing(primary, `${mount}/crl`, remoteSerial);
    await crlListing(perf, `${mount}/crl`, remoteSerial);
  });

  it("the promoted DR secondary is the primary's CA: its leaves verify against it, and it writes roles", async () => {
    const issued = await primary.client.post(`${mount}/issue/web`, { common_name: 'old.example.com' });
    expect(issued.status).toBe(200);
    const primarySerial = issued.body.data.serial_number as string;
    await replicasInSync(primary.client, dr.client, 'dr');

    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await dr.client.post(`${base}/attempt`, {});
    const done = await dr.client.post(`${base}/update`, { key: dr.unsealKey, nonce: start.body.nonce });
    const decoded = await dr.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    const promoted = await dr.client.post('sys/replication/dr/secondary/promote', {
      dr_operation_token: decoded.body.data.token as string,
      force: true,
    });
    expect(promoted.status).toBe(200);

    const ca = await served(dr.client, `${mount}/ca/pem`);
    expect(ca.text).toBe(caPem);
    // the primary's issued certificate is in its store (DR takes everything)
    expect((await dr.client.get(`${mount}/cert/${primarySerial}`)).body.data.certificate).toBe(
      issued.body.data.certificate,
    );
    const leaf = await dr.client.post(`${mount}/issue/web`, { common_name: 'new.example.com' });
    expect(leaf.status).toBe(200);
    expect(ssl.verify(caPem, leaf.body.data.certificate as string)).toMatchObject({ ok: true });
    // writes to the replicated role and CRL settings follow (the promotion folded their streams)
    expect(
      (await dr.client.post(`${mount}/roles/web`, { allow_any_name: true, key_type: 'ec' })).status,
    ).toBe(204);
    expect((await dr.client.get(`${mount}/roles/web`)).body.data.allow_any_name).toBe(true);
    // its history keeps the primary's times for what the promotion folded, then its own write
    const ours = [
      await historyAt(dr.client, `${mount}/roles/web`, beforeRole),
      await historyAt(dr.client, `${mount}/roles/web`, afterRole),
    ];
    expect(ours).toEqual(primaryRoleHistory);
    const now = await historyAt(dr.client, `${mount}/roles/web`, await historyInstant());
    expect([now.status, now.state?.allow_any_name]).toEqual([200, true]);
    expect((await dr.client.post(`${mount}/revoke`, { serial_number: primarySerial })).status).toBe(200);
    const crl = await dr.client.get(`${mount}/crl/pem`);
    expect(ssl.verify(caPem, issued.body.data.certificate as string, undefined, crl.text)).toMatchObject({
      ok: false,
    });
  });

  it('the performance secondary moved to the promoted cluster re-syncs pki and keeps the certificate it issued', async () => {
    expect((await dr.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    const issued = await dr.client.post('sys/replication/performance/primary/secondary-token', {
      id: 'perf-pki-2',
    });
    const token = issued.body.wrap_info.token as string;
    // the promoted cluster's pki log is its own (the fold, then its writes), not the one the
    // secondary holds a position in: that log diverged and re-syncs from the promoted cluster
    expect(
      (await perf.client.post('sys/replication/performance/secondary/update-primary', { token })).status,
    ).toBe(204);
    const synced = await replicasInSync(dr.client, perf.client, 'performance');
    expect(synced.secondary.merkle_root).toBe(synced.primary.merkle_root);
    // the role as the promoted cluster wrote it after the promotion
    expect((await perf.client.get(`${mount}/roles/web`)).body.data.allow_any_name).toBe(true);
    // its own certificate is still in its store, revoked, on its CRL signed by the same CA
    const cert = await perf.client.get(`${mount}/cert/${perfLeaf.serial}`);
    expect([cert.status, cert.body.data?.certificate]).toEqual([200, perfLeaf.certificate]);
    expect(cert.body.data.revocation_time).toBeGreaterThan(0);
    const crl = await perf.client.get(`${mount}/crl/pem`);
    expect(ssl.verify(caPem, perfLeaf.certificate, undefined, crl.text)).toMatchObject({ ok: false });
    // and it goes on issuing with the CA it serves again
    const leaf = await perf.client.post(`${mount}/issue/web`, { common_name: 'after.example.com' });
    expect(leaf.status).toBe(200);
    expect(ssl.verify(caPem, leaf.body.data.certificate as string)).toMatchObject({ ok: true });
    const list = await perf.client.list(`${mount}/certs`);
    expect(list.body.data.keys).toEqual(
      expect.arrayContaining([perfLeaf.serial, leaf.body.data.serial_number as string]),
    );
  });
});
