import { startSlapd, waitFor, type Slapd } from '@coffer/testing';
import { startCluster, START_TIMEOUT_MS, type Cluster } from './support';
import { waitForEngines } from './support/launch/bootstrap';
import { startLdapProxy, type LdapProxy } from './support/ldap-proxy';

jest.setTimeout(180_000);

/**
 * kill -9 of the directory service after the directory took a new password and before the service
 * confirmed it: after a restart, the recovery pass finishes the change and the password Coffer
 * hands out is the one the directory holds.
 */
describe('cluster: directory service killed mid-rotation', () => {
  let cluster: Cluster;
  let slapd: Slapd;
  let proxy: LdapProxy;

  beforeAll(async () => {
    slapd = await startSlapd(['crashy']);
    proxy = await startLdapProxy({ host: '127.0.0.1', port: Number(new URL(slapd.url).port) });
    cluster = await startCluster({ label: 'dircrash' });
    expect((await cluster.client.post('sys/mounts/directory', { type: 'directory' })).status).toBe(204);
    await waitForEngines(cluster.baseUrl, cluster.rootToken);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
    await proxy?.stop();
    await slapd?.stop();
  });

  it('leaves no unknown password after restart', async () => {
    const root = cluster.client;
    const config = {
      url: proxy.url,
      binddn: slapd.binddn,
      bindpass: slapd.bindpass,
      userdn: slapd.userdn,
      schema: 'openldap',
      request_timeout: 60,
    };
    expect((await root.post('directory/config', config)).status).toBe(204);
    expect((await root.post('directory/roles/crashy', { service_account_name: 'crashy' })).status).toBe(204);
    const first: string = (await root.get('directory/creds/crashy')).body.data.current_password;
    expect(await slapd.binds(slapd.dnOf('crashy'), first)).toBe(true);

    proxy.swallowModifyResponses(true);
    const inFlight = root
      .post('directory/rotate-role/crashy', {}, { timeoutMs: 60_000 })
      .catch(() => undefined);
    // the directory has the new password: the old one stops binding
    await waitFor(async () => !(await slapd.binds(slapd.dnOf('crashy'), first)), { timeoutMs: 20_000 });
    expect(proxy.swallowed).toBe(1);
    const victim = cluster.processes.services['directory']?.[0];
    if (!victim) throw new Error('no directory replica');
    victim.kill('SIGKILL');
    await victim.exited;
    proxy.swallowModifyResponses(false);
    await inFlight;

    await cluster.addReplica('directory');
    const creds = await waitFor(
      async () => {
        const res = await root.get('directory/creds/crashy', { timeoutMs: 30_000 });
        return res.status === 200
          ? (res.body.data as { current_password: string; last_password: string })
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(creds.last_password).toBe(first);
    expect(creds.current_password).not.toBe(first);
    expect(await slapd.binds(slapd.dnOf('crashy'), creds.current_password)).toBe(true);
  });
});
