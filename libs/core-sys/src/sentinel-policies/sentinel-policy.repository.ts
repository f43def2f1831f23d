import { Injectable } from '@nestjs/common';
import type { SentinelEnforcementLevel } from '@coffer/contracts';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { SentinelPolicyKind } from './sentinel-policy.table';

export interface StoredSentinelPolicy {
  kind: SentinelPolicyKind;
  name: string;
  policy: string;
  enforcement_level: SentinelEnforcementLevel;
  paths: string[];
  version: number;
}

const COLUMNS = ['kind', 'name', 'policy', 'enforcement_level', 'paths', 'version'] as const;

/** All SQL of the RGP/EGP read model. */
@Injectable()
export class SentinelPolicyRepository {
  constructor(private readonly db: CoreSysDb) {}

  async all(kind?: SentinelPolicyKind): Promise<StoredSentinelPolicy[]> {
    let q = this.db.of().selectFrom('sentinel_policies').select(COLUMNS);
    if (kind) q = q.where('kind', '=', kind);
    return q.orderBy('kind').orderBy('name').execute();
  }

  async byName(kind: SentinelPolicyKind, name: string): Promise<StoredSentinelPolicy | undefined> {
    return this.db
      .of()
      .selectFrom('sentinel_policies')
      .select(COLUMNS)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async upsert(trx: CoreSysTrx, p: StoredSentinelPolicy, at: Date): Promise<void> {
    const values = {
      policy: p.policy,
      enforcement_level: p.enforcement_level,
      paths: JSON.stringify(p.paths),
      version: p.version,
      updated_at: at,
    };
    await this.db
      .of(trx)
      .insertInto('sentinel_policies')
      .values({ kind: p.kind, name: p.name, ...values })
      .onConflict((oc) => oc.columns(['kind', 'name']).doUpdateSet(values))
      .execute();
  }

  async delete(trx: CoreSysTrx, kind: SentinelPolicyKind, name: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('sentinel_policies')
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }
}
