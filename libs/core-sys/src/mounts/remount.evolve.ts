import type { MountRecord } from './mount.model';
import type { MountEvent } from './mounts.events';

export type MigrationEvent = Extract<
  MountEvent,
  { type: 'MountMigrationStarted' | 'MountMoved' | 'MountMigrationFailed' }
>;

/** evolveMounts for the migration events. */
export function evolveRemount(table: readonly MountRecord[], event: MigrationEvent): MountRecord[] {
  const { uuid } = event.data;
  return table.map((m) => {
    if (m.uuid !== uuid) return m;
    switch (event.type) {
      case 'MountMigrationStarted':
        return { ...m, tainted: true };
      case 'MountMigrationFailed': {
        const { tainted: _tainted, ...rest } = m;
        return rest;
      }
      case 'MountMoved': {
        const { tainted: _tainted, namespace: _ns, ...rest } = m;
        return {
          ...rest,
          path: event.data.path,
          ...(event.data.namespace === '' ? {} : { namespace: event.data.namespace }),
        };
      }
    }
  });
}
