import { waitFor } from '@coffer/testing';
import {
  replicasInSync,
  uniq,
  type ApiClient,
  type DevServer,
  activateSecondary,
  startReplicatingDevServer,
} from './support';
import { OpensslDir, rootCa } from './pki/pki-peers';

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

/** An instant between two changes: the next change is recorded strictly after it (polls the clock). */
async function instant(): Promise<string> {
  const at = new Date().toISOString();
  while (Date.now() <= Date.parse(at)) await new Promise((resolve) => setImmediate(resolve));
  return at;
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
    beforeRole = await instant();
    const role = await primary.client.post(`${mount}/roles/web`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      max_ttl: '24h',
    });
    expect(role.status).toBe(204);
    afterRole = await instant();
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
    const now = await historyAt(dr.client, `${mount}/roles/web`, await instant());
    expect([now.status, now.state?.allow_any_name]).toEqual([200, true]);
    expect((await dr.client.post(`${mount}/revoke`, { serial_number: primarySerial })).status).toBe(200);
    const crl = await dr.client.get(`${mount}/crl/pem`);
    expect(ssl.verify(caPem, issued.body.data.certificate as string, undefined, crl.text)).toMatchObject({
      ok: false,
    });
  });
});
