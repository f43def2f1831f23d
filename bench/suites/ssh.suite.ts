import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { httpJson, waitForEngines } from '../../test/support/launch/bootstrap';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite, type CofferTarget } from '../lib/suite';

/** An ed25519 user key in authorized_keys format. */
function ed25519PublicKey(): string {
  const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return sshpk.parseKey(pem, 'pem').toString('ssh');
}

/** ssh/ (mounted by dev mode; mounted here in a cluster, then its replicas are awaited). */
export async function prepareSsh(target: CofferTarget): Promise<void> {
  const mounts = await httpJson('GET', `${target.baseUrl}/v1/sys/mounts`, { token: target.rootToken });
  const data = (mounts.body as { data?: Record<string, unknown> }).data ?? {};
  if (!('ssh/' in data)) {
    await mustWrite(target, 'sys/mounts/ssh', { type: 'ssh' });
    await waitForEngines(target.baseUrl, target.rootToken);
  }
  await mustWrite(target, 'ssh/config/ca', { generate_signing_key: true, key_type: 'ssh-ed25519' });
  await mustWrite(target, 'ssh/roles/bench', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: '*',
    default_user: 'bench',
    default_extensions: { 'permit-pty': '' },
    ttl: '30m',
  });
}

/** SSH certificate signing: an ed25519 CA signs an ed25519 user key (Vault's ssh_sign scenario). */
export const sshSuite: BenchSuite = {
  name: 'ssh',
  targets: [{ scenario: 'SSH sign', minRps: 1500, label: 'SSH sign (ed25519 CA, ed25519 key) ≥ 1,500/s' }],
  async run(target, shape, log) {
    await prepareSsh(target);
    const body = JSON.stringify({ public_key: ed25519PublicKey(), valid_principals: 'bench' });
    return [
      await runScenario(target, shape, log, 'SSH sign', {
        method: 'POST',
        body,
        path: () => '/v1/ssh/sign/bench',
      }),
    ];
  },
};
