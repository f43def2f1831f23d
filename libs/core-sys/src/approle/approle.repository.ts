import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { RoleState, SecretIdState } from './approle.decider';
import {
  ROLE_COLUMNS,
  roleToRow,
  rowToRole,
  rowToSecretId,
  SECRET_ID_COLUMNS,
  secretIdToRow,
  type Versioned,
} from './approle.table';

/** All SQL of the AppRole read model. */
@Injectable()
export class ApproleRepository {
  constructor(private readonly db: CoreSysDb) {}

  async role(
    mountUuid: string,
    roleName: string,
    trx?: CoreSysTrx,
  ): Promise<Versioned<RoleState> | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('approle_roles')
      .select(ROLE_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('role_name', '=', roleName)
      .executeTakeFirst();
    return row && rowToRole(row);
  }

  async roleById(mountUuid: string, roleId: string): Promise<Versioned<RoleState> | undefined> {
    const row = await this.db
      .of()
      .selectFrom('approle_roles')
      .select(ROLE_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('role_id', '=', roleId)
      .executeTakeFirst();
    return row && rowToRole(row);
  }

  async roleNames(mountUuid: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('approle_roles')
      .select('role_name')
      .where('mount_uuid', '=', mountUuid)
      .orderBy('role_name')
      .execute();
    return rows.map((r) => r.role_name);
  }

  async saveRole(trx: CoreSysTrx, state: RoleState, version: number, exists: boolean): Promise<void> {
    const row = roleToRow(state, version);
    if (!exists) {
      await this.db.of(trx).insertInto('approle_roles').values(row).execute();
      return;
    }
    const { mount_uuid: _m, role_name: _r, ...rest } = row;
    await this.db
      .of(trx)
      .updateTable('approle_roles')
      .set(rest)
      .where('mount_uuid', '=', state.mountUuid)
      .where('role_name', '=', state.roleName)
      .execute();
  }

  async deleteRole(trx: CoreSysTrx, mountUuid: string, roleName: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('approle_roles')
      .where('mount_uuid', '=', mountUuid)
      .where('role_name', '=', roleName)
      .execute();
  }

  async secretId(
    mountUuid: string,
    hmac: string,
    trx?: CoreSysTrx,
  ): Promise<Versioned<SecretIdState> | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('approle_secret_ids')
      .select(SECRET_ID_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('hmac', '=', hmac)
      .executeTakeFirst();
    return row && rowToSecretId(row);
  }

  async secretIdByAccessor(
    mountUuid: string,
    accessor: string,
  ): Promise<Versioned<SecretIdState> | undefined> {
    const row = await this.db
      .of()
      .selectFrom('approle_secret_ids')
      .select(SECRET_ID_COLUMNS)
      .where('mount_uuid', '=', mountUuid)
      .where('accessor', '=', accessor)
      .executeTakeFirst();
    return row && rowToSecretId(row);
  }

  /** The HMACs and accessors of a role's secret ids, by accessor. */
  async secretIdsOfRole(mountUuid: string, roleName: string): Promise<{ hmac: string; accessor: string }[]> {
    return this.db
      .of()
      .selectFrom('approle_secret_ids')
      .select(['hmac', 'accessor'])
      .where('mount_uuid', '=', mountUuid)
      .where('role_name', '=', roleName)
      .orderBy('accessor')
      .execute();
  }

  /** Secret ids expired at `nowMs`, oldest first. */
  async expiredSecretIds(nowMs: number, limit: number): Promise<{ mountUuid: string; hmac: string }[]> {
    const rows = await this.db
      .of()
      .selectFrom('approle_secret_ids')
      .select(['mount_uuid', 'hmac'])
      .where('expires_at', '<=', nowMs)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ mountUuid: r.mount_uuid, hmac: r.hmac }));
  }

  /**
   * Secret ids whose role is gone (a role deleted while one was being issued, or a delete cut
   * short): what Vault's tidy calls dangling entries.
   */
  async danglingSecretIds(limit: number): Promise<{ mountUuid: string; hmac: string }[]> {
    const rows = await this.db
      .of()
      .selectFrom('approle_secret_ids as s')
      .leftJoin('approle_roles as r', (join) =>
        join.onRef('r.mount_uuid', '=', 's.mount_uuid').onRef('r.role_name', '=', 's.role_name'),
      )
      .select(['s.mount_uuid', 's.hmac'])
      .where('r.role_name', 'is', null)
      .orderBy('s.created_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ mountUuid: r.mount_uuid, hmac: r.hmac }));
  }

  async saveSecretId(trx: CoreSysTrx, state: SecretIdState, version: number, exists: boolean): Promise<void> {
    const row = secretIdToRow(state, version);
    if (!exists) {
      await this.db.of(trx).insertInto('approle_secret_ids').values(row).execute();
      return;
    }
    const { mount_uuid: _m, hmac: _h, ...rest } = row;
    await this.db
      .of(trx)
      .updateTable('approle_secret_ids')
      .set(rest)
      .where('mount_uuid', '=', state.mountUuid)
      .where('hmac', '=', state.hmac)
      .execute();
  }

  async deleteSecretId(trx: CoreSysTrx, mountUuid: string, hmac: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('approle_secret_ids')
      .where('mount_uuid', '=', mountUuid)
      .where('hmac', '=', hmac)
      .execute();
  }
}
