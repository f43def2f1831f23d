import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { UserState } from './userpass.decider';
import { rowToUser, USER_COLUMNS, userToRow, type VersionedUser } from './userpass.table';

/** All SQL of the userpass read model. */
@Injectable()
export class UserpassRepository {
  constructor(private readonly db: CoreSysDb) {}

  async find(mountUuid: string, username: string, trx?: CoreSysTrx): Promise<VersionedUser | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('userpass_users')
      .select(USER_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('username', '=', username)
      .executeTakeFirst();
    return row && rowToUser(row);
  }

  async usernames(mountUuid: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('userpass_users')
      .select('username')
      .where('mount_uuid', '=', mountUuid)
      .orderBy('username')
      .execute();
    return rows.map((r) => r.username);
  }

  async save(trx: CoreSysTrx, state: UserState, version: number, exists: boolean): Promise<void> {
    const row = userToRow(state, version);
    if (!exists) {
      await this.db.of(trx).insertInto('userpass_users').values(row).execute();
      return;
    }
    const { mount_uuid: _m, username: _u, ...rest } = row;
    await this.db
      .of(trx)
      .updateTable('userpass_users')
      .set(rest)
      .where('mount_uuid', '=', state.mountUuid)
      .where('username', '=', state.username)
      .execute();
  }

  async delete(trx: CoreSysTrx, mountUuid: string, username: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('userpass_users')
      .where('mount_uuid', '=', mountUuid)
      .where('username', '=', username)
      .execute();
  }
}
