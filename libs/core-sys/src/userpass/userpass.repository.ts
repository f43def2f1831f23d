import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { AnyTrx, ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import type { UserState } from './userpass.decider';
import {
  rowToUser,
  USER_COLUMNS,
  userToRow,
  type UserpassDatabase,
  type VersionedUser,
} from './userpass.table';

/** All SQL of the userpass read model. */
@Injectable()
export class UserpassRepository {
  constructor(@Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime) {}

  private db(trx?: AnyTrx): Kysely<UserpassDatabase> {
    return ((trx ?? this.runtime.db) as Kysely<UserpassDatabase>).withSchema(this.runtime.schema);
  }

  async find(mountUuid: string, username: string, trx?: AnyTrx): Promise<VersionedUser | undefined> {
    const row = await this.db(trx)
      .selectFrom('userpass_users')
      .select(USER_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('username', '=', username)
      .executeTakeFirst();
    return row && rowToUser(row);
  }

  async usernames(mountUuid: string): Promise<string[]> {
    const rows = await this.db()
      .selectFrom('userpass_users')
      .select('username')
      .where('mount_uuid', '=', mountUuid)
      .orderBy('username')
      .execute();
    return rows.map((r) => r.username);
  }

  async save(trx: AnyTrx, state: UserState, version: number, exists: boolean): Promise<void> {
    const row = userToRow(state, version);
    if (!exists) {
      await this.db(trx).insertInto('userpass_users').values(row).execute();
      return;
    }
    const { mount_uuid: _m, username: _u, ...rest } = row;
    await this.db(trx)
      .updateTable('userpass_users')
      .set(rest)
      .where('mount_uuid', '=', state.mountUuid)
      .where('username', '=', state.username)
      .execute();
  }

  async delete(trx: AnyTrx, mountUuid: string, username: string): Promise<void> {
    await this.db(trx)
      .deleteFrom('userpass_users')
      .where('mount_uuid', '=', mountUuid)
      .where('username', '=', username)
      .execute();
  }
}
