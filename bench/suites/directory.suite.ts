import { startSlapd } from '@coffer/testing';
import { httpJson, waitForEngines } from '../../test/support/launch/bootstrap';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite, type CofferTarget } from '../lib/suite';

/** directory/ (mounted by dev mode; mounted here in a cluster, then its replicas are awaited). */
async function prepareDirectory(target: CofferTarget, slapd: Awaited<ReturnType<typeof startSlapd>>) {
  const mounts = await httpJson('GET', `${target.baseUrl}/v1/sys/mounts`, { token: target.rootToken });
  const data = (mounts.body as { data?: Record<string, unknown> }).data ?? {};
  if (!('directory/' in data)) {
    await mustWrite(target, 'sys/mounts/directory', { type: 'directory' });
    await waitForEngines(target.baseUrl, target.rootToken);
  }
  await mustWrite(target, 'directory/config', {
    url: slapd.url,
    binddn: slapd.binddn,
    bindpass: slapd.bindpass,
    userdn: slapd.userdn,
    schema: 'openldap',
  });
  await mustWrite(target, 'directory/roles/bench', { service_account_name: 'bench', ttl: '1h' });
}

/**
 * Directory creds reads against a local slapd: each read looks the account up in the directory
 * (Vault compares the directory's last-set time with its own rotation) and answers the stored password.
 */
export const directorySuite: BenchSuite = {
  name: 'directory',
  targets: [
    { scenario: 'directory creds', minRps: 200, label: 'directory creds (LDAP lookup per read) ≥ 200/s' },
  ],
  async run(target, shape, log) {
    const slapd = await startSlapd(['bench']);
    try {
      await prepareDirectory(target, slapd);
      return [
        await runScenario(target, shape, log, 'directory creds', {
          method: 'GET',
          path: () => '/v1/directory/creds/bench',
        }),
      ];
    } finally {
      await slapd.stop();
    }
  },
};
