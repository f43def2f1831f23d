import { Injectable } from '@nestjs/common';
import { SshDb, type SshTrx } from '../shared/ssh.table';
import type { RecordKind } from './record.events';

export interface RecordRow {
  name: string;
  body: Buffer;
  stream_version: number;
}

/** SQL of the settings records. */
@Injectable()
export class RecordRepository {
  constructor(private readonly db: SshDb) {}

  /** The records of one kind of a mount. */
  private ofKind(mountUuid: string, kind: RecordKind) {
    return this.db
      .of()
      .selectFrom('records')
      .select(['name', 'body', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind);
  }

  async get(mountUuid: string, kind: RecordKind, name: string): Promise<RecordRow | undefined> {
    return this.ofKind(mountUuid, kind).where('name', '=', name).executeTakeFirst();
  }

  /** Several records of a mount in one round trip (the hot path of sign: role and CA). */
  async getMany(
    mountUuid: string,
    keys: ReadonlyArray<{ kind: RecordKind; name: string }>,
  ): Promise<Array<RecordRow & { kind: string }>> {
    return this.db
      .of()
      .selectFrom('records')
      .select(['kind', 'name', 'body', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where((eb) => eb.or(keys.map((k) => eb.and([eb('kind', '=', k.kind), eb('name', '=', k.name)]))))
      .execute();
  }

  async list(mountUuid: string, kind: RecordKind): Promise<RecordRow[]> {
    return this.ofKind(mountUuid, kind).orderBy('name').execute();
  }

  async insert(trx: SshTrx, row: { mount_uuid: string; kind: RecordKind } & RecordRow): Promise<void> {
    await this.db.of(trx).insertInto('records').values(row).execute();
  }

  async update(trx: SshTrx, mountUuid: string, kind: RecordKind, row: RecordRow): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('records')
      .set({ body: row.body, stream_version: row.stream_version })
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', row.name)
      .execute();
  }

  async delete(trx: SshTrx, mountUuid: string, kind: RecordKind, name: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('records')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }

  /** Everything of a disabled mount. */
  async purgeMount(mountUuid: string): Promise<void> {
    await this.db.of().deleteFrom('records').where('mount_uuid', '=', mountUuid).execute();
    await this.db.of().deleteFrom('otps').where('mount_uuid', '=', mountUuid).execute();
  }
}
