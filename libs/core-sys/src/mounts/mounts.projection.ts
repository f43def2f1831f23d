import type { AnyTrx, AppendedEvent } from '@coffer/event-store';
import { MOUNT_EVENT_SCHEMAS, type MountEvent } from './mounts.events';
import type { MountsRepository } from './mounts.repository';

/** A stored mount event back to its typed form (data validated by the registry already). */
export function toMountEvent(e: Pick<AppendedEvent, 'type' | 'data'>): MountEvent {
  const type = e.type as MountEvent['type'];
  const schema = MOUNT_EVENT_SCHEMAS[type] as (typeof MOUNT_EVENT_SCHEMAS)[MountEvent['type']] | undefined;
  if (!schema) throw new Error(`not a mount event: ${e.type}`);
  return { type, data: schema.parse(e.data) } as MountEvent;
}

/** Applies one append to the mounts/table stream to the read model, in its transaction. */
export async function projectMounts(
  repo: MountsRepository,
  trx: AnyTrx,
  events: AppendedEvent[],
): Promise<number> {
  let revision = 0;
  for (const stored of events) {
    const event = toMountEvent(stored);
    switch (event.type) {
      case 'MountEnabled':
      case 'AuthMethodEnabled':
        await repo.insert(trx, event.data, stored.recordedAt);
        break;
      case 'MountTuned':
      case 'AuthMethodTuned':
        await repo.updateTunables(trx, event.data);
        break;
      case 'MountDisabled':
      case 'AuthMethodDisabled':
        await repo.delete(trx, event.data.uuid);
        break;
    }
    revision = stored.streamVersion;
  }
  if (revision > 0) await repo.setRevision(trx, revision);
  return revision;
}
