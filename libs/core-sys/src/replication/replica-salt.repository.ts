import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';

const aad = (stream: string): Buffer => Buffer.from(`core_sys.replica_salts/${stream}`, 'utf8');

/**
 * The primary's salts a secondary needs to check what the primary hashed with them: its token
 * salt (a DR secondary's copy of the primary's tokens, looked up next to this cluster's own) and
 * its AppRole mounts' secret-id salts. They live in the primary's log, which this cluster keeps
 * as it came (encrypted by the primary's barrier), so the replay keeps them here, encrypted by
 * this cluster's barrier.
 */
@Injectable()
export class ReplicaSaltRepository {
  constructor(
    private readonly db: CoreSysDb,
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'cipher'>,
  ) {}

  /** The salt (base64, as logged) the primary created in `stream`, if replicated here. */
  async find(stream: string): Promise<string | undefined> {
    const row = await this.db
      .of()
      .selectFrom('replica_salts')
      .select('salt')
      .where('stream', '=', stream)
      .executeTakeFirst();
    return row && this.runtime.cipher.decrypt(row.salt, aad(stream)).toString('utf8');
  }

  async save(trx: CoreSysTrx, stream: string, salt: string): Promise<void> {
    const sealed = this.runtime.cipher.encrypt(Buffer.from(salt, 'utf8'), aad(stream));
    await this.db
      .of(trx)
      .insertInto('replica_salts')
      .values({ stream, salt: sealed })
      .onConflict((c) => c.column('stream').doUpdateSet({ salt: sealed }))
      .execute();
  }
}
