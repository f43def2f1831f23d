import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';
import type { HaNodeRecord } from './ha-node.model';

/** All SQL of the heartbeat table. */
@Injectable()
export class HaNodeRepository {
  constructor(private readonly db: CoreSysDb) {}

  async record(node: HaNodeRecord): Promise<void> {
    const row = {
      hostname: node.hostname,
      api_address: node.apiAddress,
      cluster_address: node.clusterAddress,
      version: node.version,
      active: node.active,
      last_echo: node.lastEcho,
    };
    await this.db
      .of()
      .insertInto('ha_nodes')
      .values({ node_id: node.nodeId, ...row })
      .onConflict((oc) => oc.column('node_id').doUpdateSet(row))
      .execute();
  }

  /** Heartbeats newer than `since` (older rows are kept off, then pruned). */
  async since(since: Date): Promise<HaNodeRecord[]> {
    const rows = await this.db
      .of()
      .selectFrom('ha_nodes')
      .select(['node_id', 'hostname', 'api_address', 'cluster_address', 'version', 'active', 'last_echo'])
      .where('last_echo', '>=', since)
      .execute();
    return rows.map((r) => ({
      nodeId: r.node_id,
      hostname: r.hostname,
      apiAddress: r.api_address,
      clusterAddress: r.cluster_address,
      version: r.version,
      active: r.active,
      lastEcho: new Date(r.last_echo),
    }));
  }

  async remove(nodeId: string): Promise<void> {
    await this.db.of().deleteFrom('ha_nodes').where('node_id', '=', nodeId).execute();
  }

  /** Rows of nodes silent for long (a crash leaves its row behind). */
  async prune(before: Date): Promise<void> {
    await this.db.of().deleteFrom('ha_nodes').where('last_echo', '<', before).execute();
  }
}
