import { Inject, Injectable } from '@nestjs/common';
import {
  replicaFoldContract,
  replicaLogSchemaOf,
  REPLICATED_SERVICES,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import { openReplicaPayload, type ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';
import { WalSource } from '../wal/wal-source';
import { ReplicaKeyringsRepository } from './replica-keyrings.repository';

/**
 * The services that keep the primary's rows beside their own log (the replica endpoint's
 * `logSchema`: every replayed one) and so fold them into it at promotion: schema -> its replica
 * log's schema.
 */
export const FOLDED_SOURCES: ReadonlyMap<string, string> = new Map(
  REPLICATED_SERVICES.map((s) => [s.schema, replicaLogSchemaOf(s.schema)]),
);

const BATCH = 500;
/** the opened rows of one fold request, at most (the transport's payload limit is 1 MiB) */
const REQUEST_BYTES = 256 * 1024;
/** a batch may append hundreds of streams on a busy service */
const FOLD_TIMEOUT_MS = 120_000;

/**
 * Promotion fold (docs/replication.md): a promoted cluster hands its own logs on, so what core-sys
 * replayed from the former primary (its replica log) must be in core-sys's own log. This reads the
 * replica log after the service's fold position, opens the rows with the keyrings this cluster
 * received (the former primary's, and those of the clusters its logs came from), and has the
 * service fold them, batch by batch. Idempotent and resumable: the service records its position
 * and what it folded with its appends.
 */
@Injectable()
export class PromotionFold {
  constructor(
    private readonly wal: WalSource,
    private readonly keyrings: ReplicaKeyringsRepository,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Folds everything not folded yet; answers how many events were appended. One fold at a time
   * in this process (promote and the supervisor both start one), so two never race on a stream.
   */
  fold(mode: ReplicationMode): Promise<number> {
    const run = this.queue.then(() => this.run(mode));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(mode: ReplicationMode): Promise<number> {
    let appended = 0;
    for (const [source, replicaSchema] of FOLDED_SOURCES) {
      const contract = replicaFoldContract(source);
      let { foldedThrough } = await this.runtime.transport.request(contract, { op: 'position' });
      for (;;) {
        const rows = await this.wal.read(replicaSchema, foldedThrough, BATCH);
        const last = rows.at(-1);
        if (!last) break;
        const opener = await this.keyrings.opener();
        const events = rows
          // a placeholder of a row the performance primary filtered out has no payload
          .filter((r) => r.payload.length > 0)
          .map((r) => ({
            wal: r.wal,
            stream: r.stream,
            streamVersion: r.streamVersion,
            type: r.type,
            schemaVersion: r.schemaVersion,
            data: openReplicaPayload(opener, source, r),
          }));
        for (const chunk of bySize(events, last.wal)) {
          const answer = await this.runtime.transport.request(
            contract,
            { op: 'fold', mode, events: chunk.events, through: chunk.through },
            { write: true, timeoutMs: FOLD_TIMEOUT_MS },
          );
          appended += answer.appended;
        }
        foldedThrough = last.wal;
        if (rows.length < BATCH) break;
      }
    }
    return appended;
  }
}

/**
 * The rows in requests of at most REQUEST_BYTES of data each (one row at least), in order; each
 * request folds through its last row, the last one through `through` (placeholders included).
 */
export function bySize<E extends { wal: number; data: unknown }>(
  events: readonly E[],
  through: number,
): Array<{ events: E[]; through: number }> {
  const chunks: Array<{ events: E[]; through: number }> = [];
  let current: E[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = JSON.stringify(e.data ?? null).length + 200;
    if (current.length > 0 && bytes + size > REQUEST_BYTES) {
      chunks.push({ events: current, through: current.at(-1)?.wal ?? through });
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  chunks.push({ events: current, through });
  return chunks;
}
