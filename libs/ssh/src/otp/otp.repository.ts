import { Injectable } from '@nestjs/common';
import type { Selectable } from 'kysely';
import { SshDb, type OtpsTable, type SshTrx } from '../shared/ssh.table';

export type OtpRow = Selectable<OtpsTable>;

/** SQL of unused OTPs. */
@Injectable()
export class OtpRepository {
  constructor(private readonly db: SshDb) {}

  get(mountUuid: string, hash: string): Promise<OtpRow | undefined> {
    return this.db
      .of()
      .selectFrom('otps')
      .selectAll()
      .where('mount_uuid', '=', mountUuid)
      .where('hash', '=', hash)
      .executeTakeFirst();
  }

  async insert(trx: SshTrx, row: OtpRow): Promise<void> {
    await this.db.of(trx).insertInto('otps').values(row).execute();
  }

  async delete(trx: SshTrx, mountUuid: string, hash: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('otps')
      .where('mount_uuid', '=', mountUuid)
      .where('hash', '=', hash)
      .execute();
  }
}
