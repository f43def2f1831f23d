import type { HaNodeData } from '@coffer/contracts';

/** A heartbeat as recorded. */
export interface HaNodeRecord {
  nodeId: string;
  hostname: string;
  apiAddress: string;
  clusterAddress: string;
  version: string;
  active: boolean;
  lastEcho: Date;
}

/** Heartbeats are this far apart. */
export const HA_ECHO_INTERVAL_MS = 5_000;
/** A node silent for three heartbeats is gone (crashed or cut off). */
export const HA_NODE_STALE_MS = 3 * HA_ECHO_INTERVAL_MS;

/**
 * sys/ha-status's nodes from the heartbeats: the live ones only, the active node first (with no
 * last echo, as Vault shows it) then the standbys by host name. Two nodes claiming the lead
 * (the old leader's last heartbeat predates its loss) resolve to the newer claim.
 */
export function haNodesView(rows: readonly HaNodeRecord[], now: Date): HaNodeData[] {
  const live = rows.filter((r) => now.getTime() - r.lastEcho.getTime() <= HA_NODE_STALE_MS);
  const leader = live.filter((r) => r.active).sort((a, b) => b.lastEcho.getTime() - a.lastEcho.getTime())[0];
  const ordered = [...live].sort((a, b) => {
    if (a === leader) return -1;
    if (b === leader) return 1;
    return a.hostname.localeCompare(b.hostname) || a.nodeId.localeCompare(b.nodeId);
  });
  return ordered.map((r) => ({
    hostname: r.hostname,
    api_address: r.apiAddress,
    cluster_address: r.clusterAddress,
    active_node: r === leader,
    last_echo: r === leader ? null : r.lastEcho.toISOString(),
    version: r.version,
    upgrade_version: r.version,
    redundancy_zone: '',
  }));
}
