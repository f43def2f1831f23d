import { Injectable } from '@nestjs/common';
import { ReplicationDb, type ReplicationStateTable, type ReplicationTrx } from '../replication.table';

/** SQL of the modes' state rows. */
@Injectable()
export class ReplicationStateRepository {
  constructor(private readonly db: ReplicationDb) {}

  async get(mode: string): Promise<ReplicationStateTable | undefined> {
    return this.db
      .of()
      .selectFrom('replication_state')
      .select(['mode', 'public_state', 'secrets', 'stream_version'])
      .where('mode', '=', mode)
      .executeTakeFirst();
  }

  async upsert(trx: ReplicationTrx, row: ReplicationStateTable): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('replication_state')
      .values(row)
      .onConflict((oc) =>
        oc.column('mode').doUpdateSet({
          public_state: row.public_state,
          secrets: row.secrets,
          stream_version: row.stream_version,
        }),
      )
      .execute();
  }
}
