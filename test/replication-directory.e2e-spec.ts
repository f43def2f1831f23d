import { isDeepStrictEqual } from 'node:util';
import { startSlapd, waitFor, type Slapd } from '@coffer/testing';
import {
  replicasInSync,
  replicationStatus,
  uniq,
  type ApiClient,
  type DevServer,
  activateSecondary,
  startReplicatingDevServer,
} from './support';

jest.setTimeout(600_000);

/** `path` on `client` once it answers 200 with `data` (the primary's writes have streamed there). */
function served(
  client: ApiClient,
  path: string,
  opts: { headers?: Record<string, string>; data?: unknown } = {},
) {
  return waitFor(
    async () => {
      const res = await client.get(path, { headers: opts.headers ?? {} });
      if (res.status !== 200) return undefined;
      return opts.data === undefined || isDeepStrictEqual(res.body.data, opts.data) ? res : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/**
 * The directory engine on secondaries (three dev servers, one slapd): a performance secondary
 * serves the primary's config, roles and their passwords and forwards writes to the primary; a
 * promoted DR secondary serves and rotates what the primary had.
 */
describe('directory engine on DR and performance secondaries (dev servers, slapd)', () => {
  let slapd: Slapd;
  let primary: DevServer;
  let dr: DevServer;
  let perf: DevServer;
  const mount = uniq('dirrepl');

  beforeAll(async () => {
    slapd = await startSlapd(['svc1', 'svc2', 'lib1']);
    const boot = startReplicatingDevServer;
    // one after the other: three dev servers booting at once on a busy machine miss the banner
    primary = await boot();
    dr = await boot();
    perf = await boot();
    expect((await primary.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    expect((await primary.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(primary.client, dr.client, 'dr', 'dr-1');
    await activateSecondary(primary.client, perf.client, 'performance', 'perf-1');
    expect((await primary.client.post(`sys/mounts/${mount}`, { type: 'directory' })).status).toBe(204);
    const config = {
      url: slapd.url,
      binddn: slapd.binddn,
      bindpass: slapd.bindpass,
      userdn: slapd.userdn,
      schema: 'openldap',
    };
    expect((await primary.client.post(`${mount}/config`, config)).status).toBe(204);
    expect((await primary.client.post(`${mount}/roles/app`, { service_account_name: 'svc1' })).status).toBe(
      204,
    );
    // the first creds read rotates: from then on only Coffer knows svc1's password
    expect((await primary.client.get(`${mount}/creds/app`)).status).toBe(200);
  }, 600_000);
  afterAll(async () => {
    await Promise.all([primary?.stop(), dr?.stop(), perf?.stop()]);
    await slapd?.stop();
  });

  it("performance secondary: serves the primary's role and password, forwards role and library writes to the primary", async () => {
    // the role and its first rotation, as the primary answers them
    const role = (await primary.client.get(`${mount}/roles/app`)).body.data;
    expect(role).toHaveProperty('last_vault_rotation');
    await served(perf.client, `${mount}/roles/app`, { data: role });
    const config = await perf.client.get(`${mount}/config`);
    expect(config.body.data).toEqual((await primary.client.get(`${mount}/config`)).body.data);
    expect(config.text).not.toContain(slapd.bindpass);
    // the static role's password is served by the secondary itself and binds
    const creds = await perf.client.get(`${mount}/creds/app`);
    expect(creds.status).toBe(200);
    expect(creds.body.data).toEqual((await primary.client.get(`${mount}/creds/app`)).body.data);
    expect(await slapd.binds(slapd.dnOf('svc1'), creds.body.data.current_password)).toBe(true);

    // a role written through the secondary runs on the primary; the secondary serves it at its index
    const written = await perf.client.post(`${mount}/roles/web`, { service_account_name: 'svc2' });
    expect(written.status).toBe(204);
    expect((await primary.client.get(`${mount}/roles/web`)).body.data).toMatchObject({
      service_account_name: 'svc2',
    });
    const index = written.headers.get('x-vault-index') ?? '';
    expect(index).not.toBe('');
    await served(perf.client, `${mount}/roles/web`, { headers: { 'X-Vault-Index': index } });
    // rotate-role through the secondary rotates on the primary; the new password streams back
    const rotated = await perf.client.post(`${mount}/rotate-role/web`, {});
    expect(rotated.status).toBe(204);
    const onPrimary = (await primary.client.get(`${mount}/creds/web`)).body.data.current_password as string;
    const web = await waitFor(
      async () => {
        const res = await perf.client.get(`${mount}/creds/web`);
        return res.status === 200 && res.body.data.current_password === onPrimary ? res : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(await slapd.binds(slapd.dnOf('svc2'), web.body.data.current_password)).toBe(true);

    // a library set written through the secondary lands on the primary; its accounts are lent there
    const set = await perf.client.post(`${mount}/library/team`, { service_account_names: ['lib1'] });
    expect(set.status).toBe(204);
    const setIndex = set.headers.get('x-vault-index') ?? '';
    await served(perf.client, `${mount}/library/team/status`, {
      headers: { 'X-Vault-Index': setIndex },
      data: { lib1: { available: true } },
    });
    const refused = await perf.client.post(`${mount}/library/team/check-out`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'this set is replicated from the performance primary: check accounts out on the primary',
    ]);
    const lent = await primary.client.post(`${mount}/library/team/check-out`, {});
    expect(lent.status).toBe(200);
    expect(await slapd.binds(slapd.dnOf('lib1'), lent.body.data.password)).toBe(true);
  });

  it("promoted DR secondary: the primary's config and roles, its passwords bind, and it rotates them", async () => {
    const config = (await primary.client.get(`${mount}/config`)).body.data;
    const roles = (await primary.client.list(`${mount}/roles`)).body.data;
    const app = (await primary.client.get(`${mount}/creds/app`)).body.data;
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
    await waitFor(
      async () => ((await replicationStatus(dr.client, 'dr')).mode === 'primary' ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );

    expect((await dr.client.get(`${mount}/config`)).body.data).toEqual(config);
    expect((await dr.client.list(`${mount}/roles`)).body.data).toEqual(roles);
    const creds = await dr.client.get(`${mount}/creds/app`);
    expect(creds.body.data).toEqual(app);
    expect(await slapd.binds(slapd.dnOf('svc1'), creds.body.data.current_password)).toBe(true);

    // a write after the promotion: the promoted cluster rotates the primary's role
    expect((await dr.client.post(`${mount}/rotate-role/app`, {})).status).toBe(204);
    const after = (await dr.client.get(`${mount}/creds/app`)).body.data;
    expect(after.last_password).toBe(app.current_password);
    expect(await slapd.binds(slapd.dnOf('svc1'), after.current_password)).toBe(true);
    expect(await slapd.binds(slapd.dnOf('svc1'), app.current_password)).toBe(false);
  });
});
