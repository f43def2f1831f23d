import { Injectable } from '@nestjs/common';
import type { MigrationInfoData, MigrationStatus } from '@coffer/contracts';
import { MIGRATION_STATUSES } from '@coffer/contracts';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { MountPathDetails } from './remount.decider';

const isStatus = (s: string): s is MigrationStatus => (MIGRATION_STATUSES as readonly string[]).includes(s);

/** A migration's start, as recorded. */
export interface StartedMigration {
  migrationId: string;
  uuid: string;
  source: MountPathDetails;
  target: MountPathDetails;
}

/** All SQL of sys/remount's migration statuses. */
@Injectable()
export class MountMigrationsRepository {
  constructor(private readonly db: CoreSysDb) {}

  async start(trx: CoreSysTrx, m: StartedMigration, at: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('mount_migrations')
      .values({
        migration_id: m.migrationId,
        mount_uuid: m.uuid,
        source_namespace: m.source.namespace,
        source_path: m.source.mountPath,
        target_namespace: m.target.namespace,
        target_path: m.target.mountPath,
        status: 'in-progress',
        started_at: at,
      })
      .execute();
  }

  async finish(trx: CoreSysTrx, migrationId: string, status: MigrationStatus): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('mount_migrations')
      .set({ status })
      .where('migration_id', '=', migrationId)
      .execute();
  }

  async find(migrationId: string): Promise<MigrationInfoData | undefined> {
    const row = await this.db
      .of()
      .selectFrom('mount_migrations')
      .select([
        'migration_id',
        'source_namespace',
        'source_path',
        'target_namespace',
        'target_path',
        'status',
      ])
      .where('migration_id', '=', migrationId)
      .executeTakeFirst();
    if (!row || !isStatus(row.status)) return undefined;
    return {
      migration_id: row.migration_id,
      migration_info: {
        source_mount: row.source_namespace + row.source_path,
        target_mount: row.target_namespace + row.target_path,
        status: row.status,
      },
    };
  }

  /** Moves still in progress that started before `before` (their process may have died). */
  async inProgressSince(before: Date): Promise<StartedMigration[]> {
    const rows = await this.db
      .of()
      .selectFrom('mount_migrations')
      .select([
        'migration_id',
        'mount_uuid',
        'source_namespace',
        'source_path',
        'target_namespace',
        'target_path',
      ])
      .where('status', '=', 'in-progress')
      .where('started_at', '<', before)
      .execute();
    return rows.map((r) => ({
      migrationId: r.migration_id,
      uuid: r.mount_uuid,
      source: { namespace: r.source_namespace, mountPath: r.source_path },
      target: { namespace: r.target_namespace, mountPath: r.target_path },
    }));
  }
}
