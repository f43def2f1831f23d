import { waitFor } from '@coffer/testing';
import type { ApiClient } from './api';

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
