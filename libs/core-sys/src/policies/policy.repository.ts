import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { AnyTrx, ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import type { PoliciesDatabase } from './policy.table';

export interface StoredPolicy {
  name: string;
  policy: string;
  version: number;
}

/** All SQL of the ACL-policy read model. */
@Injectable()
export class PolicyRepository {
  constructor(@Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime) {}

  private db(trx?: AnyTrx) {
    return ((trx ?? this.runtime.db) as Kysely<PoliciesDatabase>).withSchema(this.runtime.schema);
  }

  async names(): Promise<string[]> {
    const rows = await this.db().selectFrom('acl_policies').select('name').orderBy('name').execute();
    return rows.map((r) => r.name);
  }

  async byName(name: string): Promise<StoredPolicy | undefined> {
    return this.db()
      .selectFrom('acl_policies')
      .select(['name', 'policy', 'version'])
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async byNames(names: readonly string[]): Promise<StoredPolicy[]> {
    if (names.length === 0) return [];
    return this.db()
      .selectFrom('acl_policies')
      .select(['name', 'policy', 'version'])
      .where('name', 'in', [...names])
      .execute();
  }

  async upsert(trx: AnyTrx, p: StoredPolicy, at: Date): Promise<void> {
    await this.db(trx)
      .insertInto('acl_policies')
      .values({ name: p.name, policy: p.policy, version: p.version, updated_at: at })
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({ policy: p.policy, version: p.version, updated_at: at }),
      )
      .execute();
  }

  async delete(trx: AnyTrx, name: string): Promise<void> {
    await this.db(trx).deleteFrom('acl_policies').where('name', '=', name).execute();
  }
}
