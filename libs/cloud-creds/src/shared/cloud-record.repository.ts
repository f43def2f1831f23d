import type { Selectable } from 'kysely';
import type { AnyTrx } from '@coffer/event-store';
import type { CloudCredsDb, CloudRecordsTable, CloudRecordsTableName } from './cloud-record.table';

export type CloudRecordRow = Selectable<CloudRecordsTable>;

/**
 * SQL of one mount type's records (cloud-a and cloud-b each have a table of this shape). Subclassed
 * per mount type so each gets its own provider: `new CloudARecordRepository(db)`.
 */
export abstract class CloudRecordRepository<Kind extends string> {
  protected constructor(
    private readonly db: CloudCredsDb,
    private readonly table: CloudRecordsTableName,
  ) {}

  async get(mountUuid: string, kind: Kind, name: string, trx?: AnyTrx): Promise<CloudRecordRow | undefined> {
    return this.db
      .of(trx)
      .selectFrom(this.table)
      .select(['mount_uuid', 'kind', 'name', 'body', 'stream_version', 'recover_at'])
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async names(mountUuid: string, kind: Kind): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom(this.table)
      .select('name')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  /** Records the recovery pass is to look at by `at` (any mount), the earliest first. */
  async recoverable(at: Date, limit: number): Promise<CloudRecordRow[]> {
    return this.db
      .of()
      .selectFrom(this.table)
      .select(['mount_uuid', 'kind', 'name', 'body', 'stream_version', 'recover_at'])
      .where('recover_at', '<=', at)
      .orderBy('recover_at')
      .limit(limit)
      .execute();
  }

  async upsert(trx: AnyTrx, row: CloudRecordRow): Promise<void> {
    await this.db
      .of(trx)
      .insertInto(this.table)
      .values(row)
      .onConflict((oc) =>
        oc.columns(['mount_uuid', 'kind', 'name']).doUpdateSet({
          body: row.body,
          stream_version: row.stream_version,
          recover_at: row.recover_at,
        }),
      )
      .execute();
  }

  async delete(trx: AnyTrx, mountUuid: string, kind: Kind, name: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom(this.table)
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }

  /** A disabled mount's records: core-sys revoked its leases (undoing them outside) before saying so. */
  async purgeMount(mountUuid: string): Promise<void> {
    await this.db.of().deleteFrom(this.table).where('mount_uuid', '=', mountUuid).execute();
  }
}
