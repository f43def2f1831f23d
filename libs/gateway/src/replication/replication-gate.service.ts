import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import {
  DomainError,
  type AnyEngineContract,
  type EngineRequest,
  type ContractResponse,
} from '@coffer/contracts';
import {
  replicaApplyContract,
  REPLICATED_SERVICES,
  replicationForward,
  replicationModes,
  replicationModesChanged,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import { CachedValue, type Subscription, type Transport } from '@coffer/transport';
import { CORE_LOOKUP_TIMEOUT_MS, GATEWAY_TRANSPORT } from '../gateway.options';
import type { HttpResult } from '../response/envelope';
import { healthWithReplication, servedInMode, type ModeTarget } from './dr-secondary.gate';
import { indexHeaders, indexStateOf, MISSING_INDEX_STATE, type IndexState } from './consistency-index';

/**
 * The logs an index state (X-Service-Index) may name, and the service whose reads wait for it:
 * every replicated service's (a forwarded write answers the primary's position in its log, which
 * a secondary's copy, the replica log beside its own, reaches once it has streamed).
 */
const INDEXED_SOURCES: ReadonlyMap<string, string> = new Map(
  REPLICATED_SERVICES.map((s) => [s.schema, s.service]),
);

/** The log of each replicated service, by service: what a replicating primary's write answers. */
const SCHEMA_OF_SERVICE: ReadonlyMap<string, string> = new Map(
  REPLICATED_SERVICES.map((s) => [s.service, s.schema]),
);

/** a safety net for a missed broadcast */
const MODES_MAX_AGE_MS = 5_000;

const NOT_REPLICATING: ReplicationModes = {
  dr: 'disabled',
  performance: 'disabled',
  performancePrimaryApiAddr: '',
};

/**
 * The gateway's part of replication: what this cluster is in each set (cached, dropped on the
 * replication service's broadcast), the DR secondary's refusal of client requests, and health's
 * replication fields and code. A cluster without a replication service does not replicate.
 */
@Injectable()
export class ReplicationGate implements OnModuleInit, OnModuleDestroy {
  private readonly modes: CachedValue<ReplicationModes>;
  private subscription: Subscription | undefined;

  constructor(@Inject(GATEWAY_TRANSPORT) private readonly transport: Transport) {
    this.modes = new CachedValue(
      () =>
        transport
          .request(replicationModes, {}, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS })
          .catch(() => NOT_REPLICATING),
      MODES_MAX_AGE_MS,
    );
  }

  onModuleInit(): void {
    this.subscription = this.transport.subscribe(replicationModesChanged, () => this.modes.invalidate());
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  current(): Promise<ReplicationModes> {
    return this.modes.get();
  }

  /**
   * Throws for a request this cluster does not serve in its replication mode, and (412) for a
   * read whose index state (X-Service-Index) this cluster has not applied yet.
   */
  async admit(
    fullPath: string,
    write: boolean,
    target: ModeTarget | undefined,
    headers: IncomingHttpHeaders,
  ): Promise<'local' | 'forward'> {
    const modes = await this.modes.get();
    const served = servedInMode(modes, fullPath, write, target, headers);
    const wanted = indexStateOf(headers);
    if (!wanted || write || target === undefined || INDEXED_SOURCES.get(wanted.source) !== target.service)
      return served;
    // the replica log beside the service's own (the primary's position) exists on a secondary only
    if (modes.performance !== 'secondary' && modes.dr !== 'secondary') return served;
    const head = await this.transport.request(replicaApplyContract(wanted.source), { op: 'head' });
    if (head.lastWal < wanted.wal) throw new DomainError('precondition_failed', MISSING_INDEX_STATE);
    return served;
  }

  /**
   * Where a write through a route addressing a mount (`replicated: 'mount'`) is served, once its
   * body told whether the mount it addresses or enables is local to this cluster.
   */
  async admitMountChange(
    fullPath: string,
    target: ModeTarget & { addressedLocal: boolean },
    headers: IncomingHttpHeaders,
  ): Promise<'local' | 'forward'> {
    return servedInMode(await this.modes.get(), fullPath, true, target, headers);
  }

  /**
   * A performance secondary's write, forwarded to its primary by this cluster's replication
   * service over the cluster connection: the engine request and the resolved caller (encoded
   * context), never the token. Answers the primary's engine answer and its index state.
   */
  forward(
    contract: AnyEngineContract,
    service: string,
    request: EngineRequest,
    context: Record<string, string>,
  ): Promise<{ answer: ContractResponse<AnyEngineContract>; index: IndexState }> {
    return (
      this.transport
        // a write: a time-out tells the client it may have been applied on the primary
        .request(
          replicationForward,
          { subject: contract.subject, service, request, context },
          { write: true },
        )
        .then(({ answer, index }) => ({ answer: contract.response.parse(answer), index }))
    );
  }

  /**
   * The answer as replication changes it: sys/health's replication fields and code; on a
   * replicating primary, a successful write to replicated data carries its index state.
   */
  async answer(
    fullPath: string,
    query: Readonly<Record<string, string | undefined>>,
    result: HttpResult,
    sent: { write: boolean; service: string; forwarded?: IndexState },
  ): Promise<HttpResult> {
    if (fullPath.replace(/\/+$/, '') === 'sys/health')
      return healthWithReplication(result, await this.modes.get(), query);
    if (!sent.write || result.status >= 300) return result;
    // forwarded: the primary's position of the write, for a read here once it has streamed
    if (sent.forwarded) return { ...result, headers: { ...result.headers, ...indexHeaders(sent.forwarded) } };
    const source = SCHEMA_OF_SERVICE.get(sent.service);
    if (source === undefined) return result;
    const modes = await this.modes.get();
    // a performance secondary's reads wait on its replica logs, not on its own writes' positions
    if (modes.performance === 'secondary') return result;
    if (modes.dr !== 'primary' && modes.performance !== 'primary') return result;
    // the own log's head once the write committed: at or past the write's own position
    const head = await this.transport.request(replicaApplyContract(source), { op: 'head', log: 'own' });
    return { ...result, headers: { ...result.headers, ...indexHeaders({ source, wal: head.lastWal }) } };
  }
}
