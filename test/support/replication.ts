import { freePort, waitFor } from '@coffer/testing';
import type { ApiClient } from './api';
import { startDevServer, type DevServer } from './dev-server';

export type ReplicationMode = 'dr' | 'performance';

/** The fields of `sys/replication/<mode>/status` the replication tests read. */
export interface ReplicationStatus {
  mode: string;
  cluster_id?: string;
  state?: string;
  last_wal?: number;
  last_remote_wal?: number;
  merkle_root?: string;
  known_secondaries?: string[];
  secondaries?: Array<{ node_id: string; connection_status: string }>;
  primary_cluster_addr?: string;
  known_primary_cluster_addrs?: string[];
  secondary_id?: string;
  primaries?: Array<{ connection_status: string }>;
}

/** `sys/replication/<mode>/status` (unauthenticated, as Vault). */
export async function replicationStatus(
  client: ApiClient,
  mode: ReplicationMode,
): Promise<ReplicationStatus> {
  const res = await client
    .withToken(undefined)
    .get<{ data: ReplicationStatus }>(`sys/replication/${mode}/status`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * Polls until the secondary has exactly the primary's history: the merkle root covers every
 * log's hash chain (every row, in WAL order), so equal roots and equal WAL totals mean every
 * acknowledged write is there, none twice, none out of order.
 */
export async function replicasInSync(
  primary: ApiClient,
  secondary: ApiClient,
  mode: ReplicationMode,
  timeoutMs = 120_000,
): Promise<{ primary: ReplicationStatus; secondary: ReplicationStatus }> {
  return waitFor(
    async () => {
      const p = await replicationStatus(primary, mode);
      const s = await replicationStatus(secondary, mode);
      return p.merkle_root === s.merkle_root && s.last_remote_wal === p.last_wal
        ? { primary: p, secondary: s }
        : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Makes `secondary` a `mode` secondary of `primary`: a secondary token (id `id`), then enable. */
export async function activateSecondary(
  primary: ApiClient,
  secondary: ApiClient,
  mode: ReplicationMode,
  id: string,
): Promise<void> {
  const issued = await primary.post(`sys/replication/${mode}/primary/secondary-token`, { id });
  expect(issued.status).toBe(200);
  const token = issued.body.wrap_info.token as string;
  expect((await secondary.post(`sys/replication/${mode}/secondary/enable`, { token })).status).toBe(204);
}

/**
 * A read carrying a write's index (Vault's header by default, or Coffer's): 412 until the cluster
 * has streamed the write, then the value.
 */
export function readAtIndex(
  client: ApiClient,
  path: string,
  index: string,
  header: 'X-Vault-Index' | 'X-Service-Index' = 'X-Vault-Index',
) {
  return waitFor(
    async () => {
      const res = await client.get(path, { headers: { [header]: index } });
      expect([200, 412]).toContain(res.status);
      return res.status === 200 ? res : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/**
 * A dev server with a cluster address of its own, so several on one machine replicate. Boot them
 * one after the other: several booting at once on a busy machine miss the banner.
 */
export async function startReplicatingDevServer(): Promise<DevServer> {
  return startDevServer(
    { COFFER_DEV_CLUSTER_ADDRESS: `127.0.0.1:${await freePort()}` },
    { bannerTimeoutMs: 180_000 },
  );
}
