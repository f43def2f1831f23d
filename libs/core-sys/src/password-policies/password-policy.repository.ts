import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';

/** All SQL of the password-policy read model. */
@Injectable()
export class PasswordPolicyRepository {
  constructor(private readonly db: CoreSysDb) {}

  async names(): Promise<string[]> {
    const rows = await this.db.of().selectFrom('password_policies').select('name').orderBy('name').execute();
    return rows.map((r) => r.name);
  }

  async text(name: string): Promise<string | undefined> {
    const row = await this.db
      .of()
      .selectFrom('password_policies')
      .select('policy')
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.policy;
  }

  async upsert(trx: CoreSysTrx, name: string, policy: string, at: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('password_policies')
      .values({ name, policy, updated_at: at })
      .onConflict((oc) => oc.column('name').doUpdateSet({ policy, updated_at: at }))
      .execute();
  }

  async delete(trx: CoreSysTrx, name: string): Promise<void> {
    await this.db.of(trx).deleteFrom('password_policies').where('name', '=', name).execute();
  }
}
