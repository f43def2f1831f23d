import { Inject, Injectable } from '@nestjs/common';
import {
  eventLeafHash,
  EventLogReader,
  MerkleFrontier,
  perfectRoot,
  subtreeKey,
  type ServiceRuntime,
  type SubtreeRef,
} from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { MerkleIndexRepository } from './merkle-index.repository';

/**
 * Perfect subtrees of 2^MERKLE_STORED_LEVEL leaves and up are stored (n/8 rows for n events);
 * smaller ones are recomputed from at most 16 chain hashes of the log when a proof needs them.
 */
export const MERKLE_STORED_LEVEL = 4;
const BLOCK = 2 ** MERKLE_STORED_LEVEL;
/** leaves indexed per transaction: progress survives a crash, and no transaction runs long */
const CATCH_UP_CHUNK = 8192;

class LostRace extends Error {}

/**
 * The incremental Merkle index of every event log: it reads only the (wal, hash) pairs appended
 * since its last pass, extends the stored frontier and stores the perfect subtrees they complete.
 * Proofs then cost O(log n) stored rows plus at most two 16-row reads of the log, whatever its size.
 * Replicas may index the same log at once: the head moves only from the size a pass started at,
 * so the loser's pass is dropped (its rows would have been identical anyway).
 */
@Injectable()
export class MerkleIndex {
  /** the indexed size last seen per log: it only grows, so a proof within it skips a round trip */
  readonly #indexed = new Map<string, number>();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    private readonly reader: EventLogReader,
    private readonly repo: MerkleIndexRepository,
  ) {}

  /** Indexes `log` up to at least `target` leaves (which must exist in the log). */
  async catchUp(log: string, target: number): Promise<void> {
    if ((this.#indexed.get(log) ?? 0) >= target) return;
    for (;;) {
      const head = await this.repo.head(log);
      const size = head?.size ?? 0;
      this.#indexed.set(log, size);
      if (size >= target) return;
      const frontier = head ? MerkleFrontier.deserialize(size, head.frontier) : new MerkleFrontier();
      const until = Math.min(target, size + CATCH_UP_CHUNK);
      const rows = await this.reader.hashes(log, size + 1, until, until - size);
      const nodes: { ref: SubtreeRef; hash: Buffer }[] = [];
      for (const row of rows) {
        if (row.wal !== frontier.size + 1)
          throw new Error(`log ${log} has a gap at wal ${frontier.size + 1}`);
        frontier.append(eventLeafHash(row.hash), (ref, hash) => {
          if (ref.level >= MERKLE_STORED_LEVEL) nodes.push({ ref, hash });
        });
      }
      if (frontier.size !== until) throw new Error(`log ${log} ends before wal ${until}`);
      try {
        await this.repo.transaction(async (trx) => {
          const moved = await this.repo.advance(
            trx,
            log,
            size,
            frontier.size,
            frontier.serialize(),
            this.runtime.clock(),
          );
          if (!moved) throw new LostRace();
          await this.repo.insertNodes(trx, log, nodes);
        });
      } catch (error) {
        if (!(error instanceof LostRace)) throw error;
      }
    }
  }

  /** The hashes of `refs` (perfect subtrees inside the indexed part of `log`), by subtreeKey. */
  async subtrees(log: string, refs: readonly SubtreeRef[]): Promise<Map<string, Buffer>> {
    const stored = refs.filter((r) => r.level >= MERKLE_STORED_LEVEL);
    const small = refs.filter((r) => r.level < MERKLE_STORED_LEVEL);
    const out = await this.repo.nodes(log, stored);
    for (const r of stored) {
      if (!out.has(subtreeKey(r))) throw new Error(`merkle node ${subtreeKey(r)} of ${log} is not indexed`);
    }
    // every small subtree lies inside one aligned block of 16 leaves: read each block once
    const blocks = new Map<number, Buffer[]>();
    for (const r of small) blocks.set(Math.floor((r.index * 2 ** r.level) / BLOCK), []);
    for (const block of blocks.keys()) {
      const rows = await this.reader.hashes(log, block * BLOCK + 1, (block + 1) * BLOCK, BLOCK);
      blocks.set(
        block,
        rows.map((row) => eventLeafHash(row.hash)),
      );
    }
    for (const r of small) {
      const first = r.index * 2 ** r.level;
      const leaves = blocks.get(Math.floor(first / BLOCK)) ?? [];
      const offset = first % BLOCK;
      const slice = leaves.slice(offset, offset + 2 ** r.level);
      if (slice.length !== 2 ** r.level) throw new Error(`log ${log} lacks the leaves of ${subtreeKey(r)}`);
      out.set(subtreeKey(r), perfectRoot(slice));
    }
    return out;
  }
}
