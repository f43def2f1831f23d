import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';

/** The creation time of live tokens by token ref (coreTokenCreatedAt). */
@Injectable()
export class TokenCreatedAtRepository {
  constructor(private readonly db: CoreSysDb) {}

  /** unix ms, or null when no live token has the ref */
  async createdAt(tokenRef: string): Promise<number | null> {
    const row = await this.db
      .of()
      .selectFrom('tokens')
      .select('created_at')
      .where('token_ref', '=', tokenRef)
      .executeTakeFirst();
    return row?.created_at ?? null;
  }
}
