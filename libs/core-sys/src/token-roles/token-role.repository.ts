import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { TokenRoleState } from './token-role.decider';
import type { VersionedTokenRole } from './token-role.table';

/** All SQL of the token roles read model. */
@Injectable()
export class TokenRoleRepository {
  constructor(private readonly db: CoreSysDb) {}

  async find(name: string, trx?: CoreSysTrx): Promise<VersionedTokenRole | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('token_roles')
      .select(['role', 'version'])
      .where('name', '=', name)
      .executeTakeFirst();
    return row && { state: row.role, version: row.version };
  }

  async names(): Promise<string[]> {
    const rows = await this.db.of().selectFrom('token_roles').select('name').orderBy('name').execute();
    return rows.map((r) => r.name);
  }

  async save(trx: CoreSysTrx, state: TokenRoleState, version: number): Promise<void> {
    const role = JSON.stringify(state);
    await this.db
      .of(trx)
      .insertInto('token_roles')
      .values({ name: state.name, role, version })
      .onConflict((oc) => oc.column('name').doUpdateSet({ role, version }))
      .execute();
  }

  async delete(trx: CoreSysTrx, name: string): Promise<void> {
    await this.db.of(trx).deleteFrom('token_roles').where('name', '=', name).execute();
  }
}
