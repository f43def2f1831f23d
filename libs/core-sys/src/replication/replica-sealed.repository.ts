import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';

const aad = (stream: string): Buffer => Buffer.from(`core_sys.replica_sealed/${stream}`, 'utf8');

/**
 * What a secondary needs of the primary's log that core-sys otherwise reads from its own log: the
 * primary's token salt (a DR secondary's copy of its tokens is looked up next to this cluster's
 * own), its AppRole mounts' secret-id salts, and (DR) its pending wrapped responses. This cluster
 * keeps the primary's log as it came (encrypted by the primary's barrier), so the replay keeps
 * these here, keyed by the primary's stream and encrypted by this cluster's barrier.
 */
@Injectable()
export class ReplicaSealedRepository {
  constructor(
    private readonly db: CoreSysDb,
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'cipher'>,
  ) {}

  /** The value replicated for the primary's `stream`, if any. */
  async find(stream: string): Promise<string | undefined> {
    const row = await this.db
      .of()
      .selectFrom('replica_sealed')
      .select('value')
      .where('stream', '=', stream)
      .executeTakeFirst();
    return row && this.runtime.cipher.decrypt(row.value, aad(stream)).toString('utf8');
  }

  /** The values replicated for `stream` and for the streams under `stream/`. */
  async findUnder(stream: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('replica_sealed')
      .select(['stream', 'value'])
      .where((w) => w.or([w('stream', '=', stream), w('stream', 'like', `${stream}/%`)]))
      .orderBy('stream')
      .execute();
    return rows.map((r) => this.runtime.cipher.decrypt(r.value, aad(r.stream)).toString('utf8'));
  }

  async save(trx: CoreSysTrx, stream: string, value: string): Promise<void> {
    const sealed = this.runtime.cipher.encrypt(Buffer.from(value, 'utf8'), aad(stream));
    await this.db
      .of(trx)
      .insertInto('replica_sealed')
      .values({ stream, value: sealed })
      .onConflict((c) => c.column('stream').doUpdateSet({ value: sealed }))
      .execute();
  }

  async delete(trx: CoreSysTrx, stream: string): Promise<void> {
    await this.db.of(trx).deleteFrom('replica_sealed').where('stream', '=', stream).execute();
  }
}
