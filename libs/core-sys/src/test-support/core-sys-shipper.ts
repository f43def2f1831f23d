import { replicaApplyContract } from '@coffer/contracts/replication';
import { EventRegistry, EventStore, openedReplicaEvent } from '@coffer/event-store';
import { CORE_SYS_SCHEMA } from '../migrations';
import { CoreSysHarness } from './core-sys-harness';

/**
 * The replication service between two core-sys harnesses, as the replica specs need it: the
 * primary's core-sys log read raw, and `ship` applying everything past the secondary's head.
 */
export function coreSysShipper(primary: CoreSysHarness, secondary: CoreSysHarness) {
  const apply = replicaApplyContract(CORE_SYS_SCHEMA);
  const { db, barrier } = primary.replica(0);
  const log = new EventStore({
    db: db.db,
    schema: CORE_SYS_SCHEMA,
    cipher: barrier,
    registry: new EventRegistry([]),
  });
  return {
    apply,
    log,
    /** One round of the replication service: from the secondary's head to the primary's. */
    async ship(mode: 'dr' | 'performance'): Promise<{ lastWal: number; hash: string }> {
      const head = await secondary.client.request(apply, { op: 'head' });
      const rows = await log.readRawFrom(head.lastWal, 1000);
      if (rows.length === 0) return head;
      const events = rows.map((r) => openedReplicaEvent(barrier, CORE_SYS_SCHEMA, r));
      return secondary.client.request(apply, { op: 'apply', mode, events, attachments: {} });
    },
  };
}

/** Two initialised, unsealed core-sys harnesses (each its own database, barrier, root token). */
export interface ReplicaPair {
  primary: CoreSysHarness;
  secondary: CoreSysHarness;
  primaryRoot: string;
  secondaryRoot: string;
  shipper: ReturnType<typeof coreSysShipper>;
  close(): Promise<void>;
}

export async function startReplicaPair(label: string): Promise<ReplicaPair> {
  const primary = await CoreSysHarness.start(`${label}_primary`);
  const secondary = await CoreSysHarness.start(`${label}_secondary`);
  const roots: string[] = [];
  for (const h of [primary, secondary]) {
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    roots.push(init.root_token);
  }
  return {
    primary,
    secondary,
    primaryRoot: roots[0] ?? '',
    secondaryRoot: roots[1] ?? '',
    shipper: coreSysShipper(primary, secondary),
    close: async () => {
      await primary.close();
      await secondary.close();
    },
  };
}
