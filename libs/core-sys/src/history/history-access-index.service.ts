import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { policyStream } from '../policies/policy.events';
import { TOKEN_LOG } from '../tokens/token.events';
import type { HistoryTokensTable } from './history.table';
import { HistoryAccessIndexRepository, type PolicyVersionRef } from './history-access-index.repository';

/** WAL indexes read per pass of the catch-up (bounded memory on a first build over a long log). */
const INDEX_CHUNK = 100_000;
/** TokenCreated payloads decrypted per read. */
const DECODE_CHUNK = 1_000;
const TOKEN_PREFIX = 'token/';

/** A token as the index holds it: what TokenCreated said, and when its stream held it. */
export interface IndexedToken {
  stream: string;
  accessor: string;
  namespace: string;
  entityId: string;
  policies: string[];
}

/**
 * The access index of the core_sys log (docs/history.md, "Who could do X at T"): per policy
 * stream the WAL of every event and whether the policy existed after it, per token its live WAL
 * range with its namespace, entity and policies. "Policies at T", "policy LIST at T" and "tokens
 * at T" become indexed range queries instead of folds of every stream. Derived from the log like
 * the Merkle index: the history indexer keeps it near the head, and each query first brings it
 * up to its instant, so an answer never depends on the background pass having run.
 */
@Injectable()
export class HistoryAccessIndex {
  private readonly log: string;
  /** one catch-up at a time in this process (a concurrent one elsewhere writes the same rows) */
  private running: Promise<void> = Promise.resolve();
  /** the index is known to cover the log up to here (it only grows): no need to ask its head */
  private indexed = 0;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: Pick<ServiceRuntime, 'schema'>,
    private readonly repo: HistoryAccessIndexRepository,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
  ) {
    this.log = runtime.schema;
  }

  /** Indexes the log up to event `wal` at least. Token creations are decrypted: unsealed only. */
  catchUp(wal: number): Promise<void> {
    if (wal <= this.indexed) return Promise.resolve();
    const run = this.running.then(() => this.indexTo(wal));
    this.running = run.catch(() => undefined);
    return run;
  }

  /** The tokens whose streams held a token at event `wal` (created, not revoked), by stream. */
  async tokensAt(wal: number): Promise<IndexedToken[]> {
    await this.catchUp(wal);
    return (await this.repo.liveTokens(wal)).map((r) => ({
      stream: r.stream,
      accessor: r.accessor,
      namespace: r.namespace,
      entityId: r.entity_id,
      policies: parseNames(r.policies),
    }));
  }

  /** The last event (its WAL, and whether it wrote the policy) of each of these policies at `wal`. */
  async policyVersionsAt(
    qualifiedNames: readonly string[],
    wal: number,
  ): Promise<Map<string, PolicyVersionRef>> {
    await this.catchUp(wal);
    const streams = [...new Set(qualifiedNames.map(policyStream))];
    const rows = await this.repo.policyVersionsAt(streams, wal);
    return new Map(rows.map((r) => [r.stream, r]));
  }

  /** The policy names (qualified, namespace first) whose stream `policyStream(prefix)...` held a policy at `wal`. */
  async policiesWrittenAt(prefix: string, wal: number): Promise<string[]> {
    await this.catchUp(wal);
    const streamPrefix = policyStream(prefix);
    return (await this.repo.writtenStreamsAt(streamPrefix, wal)).map((s) => s.slice(streamPrefix.length));
  }

  private async indexTo(wal: number): Promise<void> {
    let head = await this.repo.head(this.log);
    while (head < wal) {
      const to = Math.min(wal, head + INDEX_CHUNK);
      await this.repo.indexPolicies(head + 1, to);
      await this.indexTokens(head + 1, to);
      await this.repo.advance(this.log, to);
      head = to;
    }
    this.indexed = Math.max(this.indexed, head);
  }

  /** Creations first (a revocation in the same range then finds its row), then revocations in WAL order. */
  private async indexTokens(fromWal: number, toWal: number): Promise<void> {
    const events = await this.repo.tokenEvents(fromWal, toWal);
    const created = events.filter((e) => e.type === 'TokenCreated').map((e) => e.wal);
    for (let i = 0; i < created.length; i += DECODE_CHUNK) {
      const rows: HistoryTokensTable[] = [];
      for (const stored of await this.store.readWals(created.slice(i, i + DECODE_CHUNK))) {
        const event = TOKEN_LOG.decode(stored);
        if (event.type !== 'TokenCreated') continue;
        rows.push({
          stream: stored.stream,
          accessor: stored.stream.slice(TOKEN_PREFIX.length),
          namespace: event.data.namespace ?? '',
          entity_id: event.data.entityId,
          policies: JSON.stringify(event.data.policies),
          created_wal: stored.wal,
          revoked_wal: null,
        });
      }
      await this.repo.insertTokens(rows);
    }
    for (const e of events) if (e.type === 'TokenRevoked') await this.repo.revokeToken(e.stream, e.wal);
  }
}

function parseNames(json: string): string[] {
  const names: unknown = JSON.parse(json);
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}
