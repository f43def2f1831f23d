import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import type { Cipher } from '@coffer/barrier';
import {
  replicaApplyContract,
  REPLICATED_SERVICES,
  type ReplicaAttachment,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import { openReplicaPayload, type ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';
import type { SourceHead } from '../wal/merkle';
import { ReplicaLogRepository } from './replica-log.repository';
import type { WireEvent } from './stream.wire';

/**
 * The services that replay the primary's log into their logs and read models
 * (`<schema>.replication.apply`, see libs/event-store replica-endpoint.ts): REPLICATED_SERVICES.
 * The others' logs are kept as a copy in `replication.replica_log` (verified, positioned, but
 * not projected).
 */
export const REPLAYED_SOURCES: ReadonlySet<string> = new Set(REPLICATED_SERVICES.map((s) => s.schema));

const isDiverged = (error: unknown): boolean =>
  error instanceof DomainError &&
  error.code === 'precondition_failed' &&
  (error.data as { reason?: unknown } | null | undefined)?.reason === 'diverged';

/** A replayed write may wait for a busy service: longer than a request, shorter than silence. */
const APPLY_TIMEOUT_MS = 60_000;

/**
 * Where a secondary puts what it receives: replayed sources go to their service (its log is the
 * position: same WAL index, same hash chain, projected in the same transaction), the rest to the
 * replica copy. Positions are the services' log heads and the copy's recorded positions.
 */
@Injectable()
export class ReplicaSink {
  private readonly logger = new Logger('ReplicationStream');

  constructor(
    private readonly copy: ReplicaLogRepository,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async positions(mode: ReplicationMode): Promise<SourceHead[]> {
    const copied = (await this.copy.positions(mode)).filter((p) => !REPLAYED_SOURCES.has(p.source));
    const replayed: SourceHead[] = [];
    for (const source of REPLAYED_SOURCES) {
      // a service that is down counts as empty: the stream then restarts it from 0, and its
      // apply skips what it already holds (the rows at or below its head)
      const head = await this.runtime.transport
        .request(replicaApplyContract(source), { op: 'head' })
        .catch((error: unknown) => {
          if (error instanceof DomainError && error.code === 'service_unavailable')
            return { lastWal: 0, hash: '' };
          throw error;
        });
      if (head.lastWal > 0) replayed.push({ source, lastWal: head.lastWal, hash: head.hash });
    }
    return [...copied, ...replayed].sort((a, b) => a.source.localeCompare(b.source));
  }

  /**
   * Applies one batch of `source`. A replayed source needs the primary's keyring (`primary`) to
   * open the payloads and attachments for the service's projections; the rows themselves are
   * stored as the primary stored them.
   */
  async apply(
    mode: ReplicationMode,
    source: string,
    events: readonly WireEvent[],
    attachments: readonly ReplicaAttachment[],
    primary: Cipher | undefined,
  ): Promise<SourceHead> {
    if (!REPLAYED_SOURCES.has(source)) return this.copy.apply(mode, source, events);
    if (!primary) throw new Error(`no keyring of the primary to open ${source}'s events`);
    const opened = Object.fromEntries(
      attachments.map((a) => [
        a.name,
        primary.decrypt(Buffer.from(a.sealed, 'base64'), Buffer.from(a.aad, 'base64')).toString('base64'),
      ]),
    );
    let head;
    try {
      head = await this.runtime.transport.request(
        replicaApplyContract(source),
        {
          op: 'apply',
          mode,
          attachments: opened,
          events: events.map((e) => ({
            ...e,
            data:
              e.filtered === true
                ? undefined
                : openReplicaPayload(primary, source, { ...e, payload: Buffer.from(e.payload, 'base64') }),
          })),
        },
        { write: true, timeoutMs: APPLY_TIMEOUT_MS },
      );
    } catch (error) {
      if (isDiverged(error)) await this.resync(mode, source);
      throw error;
    }
    return { source, lastWal: head.lastWal, hash: head.hash };
  }

  /**
   * Re-sync of one source whose log diverged from the primary's (this cluster wrote on its own,
   * or followed another primary): what it holds of the primary is cleared (a replayed service
   * keeps what it wrote itself: scope `replicated`), and the next connection streams the
   * primary's whole log of it again (the log is the snapshot: Coffer never compacts it).
   */
  async resync(mode: ReplicationMode, source: string): Promise<void> {
    this.logger.warn(
      `${source}: this cluster's log diverged from the primary's; re-syncing it from the primary`,
    );
    if (REPLAYED_SOURCES.has(source))
      await this.runtime.transport.request(
        replicaApplyContract(source),
        { op: 'wipe', mode, scope: 'replicated' },
        { write: true },
      );
    else await this.copy.wipeSource(mode, source);
  }

  /** secondary/enable: the mode's copy and every replayed service's data are cleared. */
  async wipe(mode: ReplicationMode): Promise<void> {
    await this.copy.wipe(mode);
    for (const source of REPLAYED_SOURCES)
      await this.runtime.transport.request(
        replicaApplyContract(source),
        { op: 'wipe', mode, scope: 'all' },
        { write: true },
      );
  }
}
