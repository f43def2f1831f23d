import { readFile, writeFile } from 'node:fs/promises';
import { freePort, ManagedProcess, waitForHttp } from '@coffer/testing';
import { api, type ApiClient } from './api';
import { appEntry } from './launch/cluster-launcher';
import { echoLines } from './logs';
import type { Cluster } from './test-cluster';

export interface ExtraGateway {
  /** a client of the new gateway holding the cluster's root token */
  client: ApiClient;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * One more gateway replica of a running cluster: the cluster's own server config with another
 * API address, so it shares the database, NATS subjects and services with the first gateway.
 */
export async function startExtraGateway(cluster: Cluster, name = 'gateway-2'): Promise<ExtraGateway> {
  const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
  const config = await readFile(cluster.configPath, 'utf8');
  const apiAddress = new URL(cluster.baseUrl).host;
  const configPath = `${cluster.configPath}.${name}.hcl`;
  await writeFile(configPath, config.replace(`"${apiAddress}"`, `"127.0.0.1:${apiPort}"`), { mode: 0o600 });
  const proc = ManagedProcess.launch({
    name,
    entry: appEntry('gateway'),
    args: ['-config', configPath],
    env: { COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}` },
    onLine: echoLines(name),
  });
  try {
    await waitForHttp(`http://127.0.0.1:${opsPort}/health`, { timeoutMs: 240_000 });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return {
    client: api(`http://127.0.0.1:${apiPort}`, cluster.rootToken),
    process: proc,
    stop: async () => {
      await proc.stop();
    },
  };
}
