import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { POLICY_LOG } from '../policies/policy.events';
import { HistoryAccessIndexRepository, type PolicyVersionWal } from './history-access-index.repository';
import { HistoryPolicyCache, VERSIONS_KEPT } from './history-policy-cache';

/** policy versions read per query of their texts (the next chunk is read while one is parsed) */
const READ_CHUNK = 64;
/** versions parsed between two turns of the event loop (well under a few ms of parsing) */
const PARSE_CHUNK = 16;
const POLICY_PREFIX = 'policy/acl/';

/**
 * Parses the policy versions of the access index into the policy cache in the background, so
 * the first who-could questions of a process find them parsed instead of parsing thousands
 * (with a cold JIT) on the request path. The history indexer runs it after each pass over the
 * core_sys log: the first pass (at process start, once the index is caught up) warms as many
 * versions as the cache keeps, the likeliest needed; later passes the versions written since.
 * It reads policy texts only (not secrets; the cache keeps them anyway) and yields to the event
 * loop between small chunks, so a live request waits on at most one chunk.
 */
@Injectable()
export class HistoryPolicyWarmer {
  /** the index's policy versions up to this event have been warmed */
  private warmedTo = 0;

  constructor(
    private readonly repo: HistoryAccessIndexRepository,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
    private readonly cache: HistoryPolicyCache,
  ) {}

  /**
   * Warms the versions the access index holds up to event `head` (the caller has indexed that
   * far; the barrier is unsealed). Answers how many versions it parsed.
   */
  async warm(head: number): Promise<number> {
    if (head <= this.warmedTo) return 0;
    const refs =
      this.warmedTo === 0
        ? await this.repo.versionsLikeliestNeeded(VERSIONS_KEPT)
        : await this.repo.currentVersionsSince(this.warmedTo, VERSIONS_KEPT);
    // likeliest last, so they are the most recently used in the cache and the last to go
    const todo = refs.filter((r) => r.wal <= head && !this.cache.has(r.wal)).reverse();
    const parsed = await this.parseAll(todo);
    this.warmedTo = head;
    return parsed;
  }

  private async parseAll(todo: readonly PolicyVersionWal[]): Promise<number> {
    const chunks: number[][] = [];
    for (let i = 0; i < todo.length; i += READ_CHUNK)
      chunks.push(todo.slice(i, i + READ_CHUNK).map((r) => r.wal));
    let parsed = 0;
    let next = chunks[0] && this.read(chunks[0]);
    for (let c = 0; next; c++) {
      const events = await next;
      // the next chunk is read while this one is parsed
      const following = chunks[c + 1];
      next = following && this.read(following);
      for (let e = 0; e < events.length; e += PARSE_CHUNK) {
        for (const stored of events.slice(e, e + PARSE_CHUNK)) {
          const event = POLICY_LOG.decode(stored);
          if (event.type !== 'PolicyWritten') continue;
          this.cache.parse(stored.stream.slice(POLICY_PREFIX.length), stored.wal, event.data.policy);
          parsed++;
        }
        await nextTurn();
      }
    }
    return parsed;
  }

  private read(wals: number[]): Promise<StoredEvent[]> {
    const read = this.store.readWals(wals);
    read.catch(() => undefined); // awaited in order by parseAll: a failure there is the one reported
    return read;
  }
}
