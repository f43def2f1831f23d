import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@coffer/testing';
import {
  replicasInSync,
  uniq,
  type ApiClient,
  type DevServer,
  activateSecondary,
  startReplicatingDevServer,
} from './support';
import { describeCertificate, keygen, run } from './support/ssh-peers';

jest.setTimeout(600_000);

/** A read until it answers 200 (the write has streamed), with a deadline. */
const served = (client: ApiClient, path: string, headers: Record<string, string> = {}) =>
  waitFor(
    async () => {
      const res = await client.get(path, { headers });
      return res.status === 200 ? res : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );

/** `SHA256:...` of a public key line (ssh-keygen -l). */
async function fingerprint(publicKey: string): Promise<string> {
  const res = await run('ssh-keygen', ['-l', '-f', '-'], { input: publicKey });
  const found = /SHA256:\S+/.exec(res.stdout)?.[0];
  if (!found) throw new Error(`ssh-keygen -l: ${res.stderr}`);
  return found;
}

/**
 * The ssh engine on a primary, its performance secondary and its DR secondary (dev servers): the
 * primary's CA, roles and keys are served on both, role writes through the performance secondary
 * run on the primary, certificates signed on a secondary are the primary CA's (ssh-keygen -L),
 * OTPs stay with the cluster that issued them, and the promoted DR secondary is the primary's CA.
 */
describe('ssh engine on replication secondaries', () => {
  let primary: DevServer;
  let dr: DevServer;
  let perf: DevServer;
  let dir: string;
  const mount = uniq('ssh-repl');
  let caPublicKey = '';

  beforeAll(async () => {
    const boot = startReplicatingDevServer;
    // one after the other: three dev servers booting at once on a busy machine miss the banner
    primary = await boot();
    dr = await boot();
    perf = await boot();
    dir = mkdtempSync(path.join(tmpdir(), 'coffer-ssh-repl-'));
    expect((await primary.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    expect((await primary.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(primary.client, dr.client, 'dr', 'ssh-dr');
    await activateSecondary(primary.client, perf.client, 'performance', 'ssh-perf');
  }, 600_000);
  afterAll(async () => {
    await Promise.all([primary?.stop(), dr?.stop(), perf?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sign = async (client: ApiClient, role: string, principal: string) => {
    const key = await keygen(dir, uniq('subject'));
    const res = await client.post(`${mount}/sign/${role}`, {
      public_key: key.publicKey,
      valid_principals: principal,
    });
    expect(res.status).toBe(200);
    return describeCertificate(dir, res.body.data.signed_key as string);
  };

  it("performance secondary: serves the primary's CA and roles, forwards role writes, signs and issues OTPs itself", async () => {
    expect((await primary.client.post(`sys/mounts/${mount}`, { type: 'ssh' })).status).toBe(204);
    const ca = await primary.client.post(`${mount}/config/ca`, { key_type: 'ssh-ed25519' });
    expect(ca.status).toBe(200);
    caPublicKey = ca.body.data.public_key as string;
    const role = { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', ttl: '1h' };
    expect((await primary.client.post(`${mount}/roles/ca`, role)).status).toBe(204);
    expect(
      (
        await primary.client.post(`${mount}/roles/otp`, {
          key_type: 'otp',
          default_user: 'ops',
          cidr_list: '127.0.0.0/8',
        })
      ).status,
    ).toBe(204);

    // the primary's role and CA, once streamed
    const roleOnPerf = await served(perf.client, `${mount}/roles/otp`);
    expect(roleOnPerf.body.data).toEqual((await primary.client.get(`${mount}/roles/otp`)).body.data);
    expect((await served(perf.client, `${mount}/roles/ca`)).body.data).toEqual(
      (await primary.client.get(`${mount}/roles/ca`)).body.data,
    );
    const caOnPerf = await perf.client.get(`${mount}/config/ca`);
    expect(caOnPerf.body.data.public_key).toBe(caPublicKey);
    expect((await perf.client.withToken(undefined).get(`${mount}/public_key`)).text).toBe(caPublicKey);

    // a role written through the secondary runs on the primary, and is read back at its index
    const written = await perf.client.post(`${mount}/roles/from-perf`, { ...role, allowed_users: 'deploy' });
    expect(written.status).toBe(204);
    const index = written.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    expect((await primary.client.get(`${mount}/roles/from-perf`)).body.data.allowed_users).toBe('deploy');
    const atIndex = await waitFor(
      async () => {
        const res = await perf.client.get(`${mount}/roles/from-perf`, {
          headers: { 'X-Vault-Index': index },
        });
        expect([200, 412]).toContain(res.status);
        return res.status === 200 ? res : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(atIndex.body.data.allowed_users).toBe('deploy');

    // sign is served on the secondary, with the primary's CA (ssh-keygen names the signing CA)
    const cert = await sign(perf.client, 'from-perf', 'deploy');
    expect(cert).toContain(`Signing CA: ED25519 ${await fingerprint(caPublicKey)}`);
    expect(cert).toMatch(/Principals:\s+deploy/);

    // an OTP is the secondary's own: issued and consumed there
    const creds = await perf.client.post(`${mount}/creds/otp`, { ip: '127.0.0.9' });
    expect(creds.status).toBe(200);
    const verified = await perf.client
      .withToken(undefined)
      .post(`${mount}/verify`, { otp: creds.body.data.key });
    expect([verified.status, verified.body.data]).toEqual([
      200,
      { username: 'ops', ip: '127.0.0.9', role_name: 'otp' },
    ]);
    const primaryOtp = await primary.client.post(`${mount}/creds/otp`, { ip: '127.0.0.10' });
    const elsewhere = await perf.client.withToken(undefined).post(`${mount}/verify`, {
      otp: primaryOtp.body.data.key,
    });
    expect([elsewhere.status, elsewhere.body.errors]).toEqual([400, ['OTP not found']]);
  });

  it("promoted DR secondary: the primary's CA signs there, its roles are served and written", async () => {
    await replicasInSync(primary.client, dr.client, 'dr');
    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await dr.client.post(`${base}/attempt`, {});
    const done = await dr.client.post(`${base}/update`, { key: dr.unsealKey, nonce: start.body.nonce });
    const decoded = await dr.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    const promoted = await dr.client.post('sys/replication/dr/secondary/promote', {
      dr_operation_token: decoded.body.data.token,
      force: true,
    });
    expect(promoted.status).toBe(200);

    expect((await dr.client.get(`${mount}/config/ca`)).body.data.public_key).toBe(caPublicKey);
    // the role written through the performance secondary reached the DR secondary by the primary
    expect((await dr.client.get(`${mount}/roles/from-perf`)).body.data.allowed_users).toBe('deploy');
    const cert = await sign(dr.client, 'ca', 'anyone');
    expect(cert).toContain(`Signing CA: ED25519 ${await fingerprint(caPublicKey)}`);

    // writes after the promotion: to a replicated role (its folded stream) and a new one
    expect(
      (
        await dr.client.post(`${mount}/roles/ca`, {
          key_type: 'ca',
          allow_user_certificates: true,
          allowed_users: 'ops',
        })
      ).status,
    ).toBe(204);
    expect((await dr.client.get(`${mount}/roles/ca`)).body.data.allowed_users).toBe('ops');
    expect(
      (await dr.client.post(`${mount}/roles/after`, { key_type: 'ca', allow_user_certificates: true }))
        .status,
    ).toBe(204);
    expect(await sign(dr.client, 'ca', 'ops')).toContain(await fingerprint(caPublicKey));
  });
});
