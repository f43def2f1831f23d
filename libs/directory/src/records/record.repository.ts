import { Injectable } from '@nestjs/common';
import type { Selectable } from 'kysely';
import { DirectoryDb, type DirectoryTrx, type RecordsTable } from '../shared/directory.table';
import type { RecordKind } from './record.events';

export type RecordRow = Selectable<RecordsTable>;

/** SQL of the directory records. */
@Injectable()
export class RecordRepository {
  constructor(private readonly db: DirectoryDb) {}

  async get(
    mountUuid: string,
    kind: RecordKind,
    name: string,
    trx?: DirectoryTrx,
  ): Promise<RecordRow | undefined> {
    return this.db
      .of(trx)
      .selectFrom('records')
      .selectAll()
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async getMany(mountUuid: string, kind: RecordKind, names: readonly string[]): Promise<RecordRow[]> {
    if (names.length === 0) return [];
    return this.db
      .of()
      .selectFrom('records')
      .selectAll()
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', 'in', names)
      .execute();
  }

  async names(mountUuid: string, kind: RecordKind): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('records')
      .select('name')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  /** Roles due for rotation and records with a password change older than `pendingBefore`, any mount. */
  async needingAttention(now: Date, pendingBefore: Date, limit: number): Promise<RecordRow[]> {
    return this.db
      .of()
      .selectFrom('records')
      .selectAll()
      .where((eb) => eb.or([eb('due_at', '<=', now), eb('pending_since', '<=', pendingBefore)]))
      .orderBy('due_at')
      .limit(limit)
      .execute();
  }

  async upsert(trx: DirectoryTrx, row: RecordRow): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('records')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['mount_uuid', 'kind', 'name']).doUpdateSet({
          body: row.body,
          stream_version: row.stream_version,
          due_at: row.due_at,
          pending_since: row.pending_since,
        }),
      )
      .execute();
  }

  async delete(trx: DirectoryTrx, mountUuid: string, kind: RecordKind, name: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('records')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }

  async purgeMount(mountUuid: string): Promise<void> {
    await this.db.of().deleteFrom('records').where('mount_uuid', '=', mountUuid).execute();
  }
}
