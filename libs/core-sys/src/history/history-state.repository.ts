import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';

/** All SQL of the state-at-a-time snapshots (history_state_snapshots). */
@Injectable()
export class HistoryStateRepository {
  constructor(private readonly db: CoreSysDb) {}

  /** The latest snapshot of `stream` at or before `version`. */
  async nearest(stream: string, version: number): Promise<{ version: number; state: string } | undefined> {
    return this.db
      .of()
      .selectFrom('history_state_snapshots')
      .select(['version', 'state'])
      .where('stream', '=', stream)
      .where('version', '<=', version)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Stores a snapshot; the same (stream, version) always folds to the same state, so a second one is dropped. */
  async save(stream: string, version: number, state: string): Promise<void> {
    await this.db
      .of()
      .insertInto('history_state_snapshots')
      .values({ stream, version, state })
      .onConflict((oc) => oc.columns(['stream', 'version']).doNothing())
      .execute();
  }
}
