import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { MOUNT_EVENT_TYPES } from './mounts.events';
import { MountsRepository } from './mounts.repository';
import { MountMigrationsRepository } from './mount-migrations.repository';

type MountEvents = typeof MOUNT_EVENT_TYPES;

/** Applies one append to the mounts/table stream to the read model; answers the new revision. */
@Injectable()
export class MountsProjection implements Projection<MountEvents, number> {
  constructor(
    private readonly repo: MountsRepository,
    private readonly migrations: MountMigrationsRepository,
  ) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<MountEvents>[]): Promise<number> {
    for (const event of events) {
      switch (event.type) {
        case 'MountEnabled':
        case 'AuthMethodEnabled':
          await this.repo.insert(trx, event.data, event.recordedAt);
          break;
        case 'MountTuned':
        case 'AuthMethodTuned':
          await this.repo.updateTunables(trx, event.data);
          break;
        case 'MountDisabled':
        case 'AuthMethodDisabled':
          await this.repo.delete(trx, event.data.uuid);
          break;
        case 'MountTainted':
          await this.repo.taint(trx, event.data.uuid);
          break;
        case 'MountMigrationStarted':
          await this.repo.taint(trx, event.data.uuid);
          await this.migrations.start(trx, event.data, event.recordedAt);
          break;
        case 'MountMoved':
          await this.repo.move(trx, event.data);
          await this.migrations.finish(trx, event.data.migrationId, 'success');
          break;
        case 'MountMigrationFailed':
          await this.repo.untaint(trx, event.data.uuid);
          await this.migrations.finish(trx, event.data.migrationId, 'failure');
          break;
      }
    }
    const revision = versionAfter(events);
    if (revision > 0) await this.repo.setRevision(trx, revision);
    return revision;
  }
}

/** Every mount-table change: `append(undefined, revision, events)` on the one stream. */
export abstract class MountsEventLog extends AggregateWriter<MountEvents, number> {}
