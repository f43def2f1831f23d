import { Injectable } from '@nestjs/common';
import type { SentinelTokenFacts } from '@coffer/contracts';
import { CoreSysDb } from '../core-sys.table';

/** What Sentinel policies see of a stored token (`token.*`), by token ref. */
@Injectable()
export class SentinelTokenFactsRepository {
  constructor(private readonly db: CoreSysDb) {}

  async byRef(tokenRef: string): Promise<SentinelTokenFacts | null> {
    const row = await this.db
      .of()
      .selectFrom('tokens')
      .select([
        'created_at',
        'creation_ttl',
        'explicit_max_ttl',
        'period',
        'num_uses',
        'path',
        'role',
        'display_name',
        'entity_id',
        'meta',
      ])
      .where('token_ref', '=', tokenRef)
      .executeTakeFirst();
    if (!row) return null;
    return {
      type: 'service',
      creation_time: row.created_at,
      creation_ttl: row.creation_ttl,
      explicit_max_ttl: row.explicit_max_ttl,
      period: row.period,
      num_uses: row.num_uses,
      path: row.path,
      role: row.role,
      display_name: row.display_name,
      entity_id: row.entity_id,
      metadata: row.meta,
    };
  }
}
