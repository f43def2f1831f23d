import { Inject, Injectable } from '@nestjs/common';
import { EventLogReader, type ServiceRuntime } from '@coffer/event-store';
import { SweepJob } from '@coffer/scheduling';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { HistoryAccessIndex } from './history-access-index.service';
import { HistoryPolicyWarmer } from './history-policy-warmer.service';
import { MerkleIndex } from './merkle-index.service';

const INDEX_INTERVAL_MS = 5_000;

/**
 * Keeps the Merkle index of every log close to its head in the background, so a proof request
 * finds at most a few seconds of events left to index. It reads ciphertext-free (wal, hash)
 * pairs only, so it runs while sealed too. The access index of the core_sys log (tokens and
 * policy versions at a time) is kept up the same way while unsealed, and the policy versions it
 * indexed are parsed into the who-could questions' cache behind it (the first pass, a few seconds
 * after start, warms as many as the cache keeps), so those questions do not parse them.
 */
@Injectable()
export class HistoryIndexer extends SweepJob {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly reader: EventLogReader,
    private readonly index: MerkleIndex,
    private readonly access: HistoryAccessIndex,
    private readonly warmer: HistoryPolicyWarmer,
  ) {
    super('HistoryIndexer', 'history index', INDEX_INTERVAL_MS);
  }

  /**
   * One pass over every log (and the core_sys access index, which decrypts token creations:
   * unsealed only); answers how many logs it looked at.
   */
  override async sweep(): Promise<number> {
    const logs = await this.reader.schemas();
    for (const log of logs) await this.index.catchUp(log, (await this.reader.head(log)).lastWal);
    if (!this.runtime.cipher.sealed) {
      const head = (await this.reader.head(this.runtime.schema)).lastWal;
      await this.access.catchUp(head);
      await this.warmer.warm(head);
    }
    return logs.length;
  }
}
