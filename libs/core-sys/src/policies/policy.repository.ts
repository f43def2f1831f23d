import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { AclPoliciesTable } from './policy.table';

export type StoredPolicy = Pick<AclPoliciesTable, 'name' | 'policy' | 'version'>;

/** All SQL of the ACL-policy read model. */
@Injectable()
export class PolicyRepository {
  constructor(private readonly db: CoreSysDb) {}

  async names(): Promise<string[]> {
    const rows = await this.db.of().selectFrom('acl_policies').select('name').orderBy('name').execute();
    return rows.map((r) => r.name);
  }

  async byName(name: string): Promise<StoredPolicy | undefined> {
    return this.db
      .of()
      .selectFrom('acl_policies')
      .select(['name', 'policy', 'version'])
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async byNames(names: readonly string[]): Promise<StoredPolicy[]> {
    if (names.length === 0) return [];
    return this.db
      .of()
      .selectFrom('acl_policies')
      .select(['name', 'policy', 'version'])
      .where('name', 'in', [...names])
      .execute();
  }

  async upsert(trx: CoreSysTrx, p: StoredPolicy, at: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('acl_policies')
      .values({ name: p.name, policy: p.policy, version: p.version, updated_at: at })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({ policy: p.policy, version: p.version, updated_at: at }),
      )
      .execute();
  }

  async delete(trx: CoreSysTrx, name: string): Promise<void> {
    await this.db.of(trx).deleteFrom('acl_policies').where('name', '=', name).execute();
  }
}
