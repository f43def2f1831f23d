import { sql } from 'kysely';
import {
  replicaApplyContract,
  replicaExportContract,
  type ReplicaApplyRequest,
  type ReplicaAttachment,
  type ReplicaEvent,
  type ReplicaExportEvent,
  type ReplicaWipeScope,
} from '@coffer/contracts/replication';
import type { Subscription } from '@coffer/transport';
import type { AnyDb, AnyTrx } from './event-store-types';
import { DomainError } from '@coffer/contracts';
import { MIGRATION_TABLE_PREFIXES } from './migrate';
import { applyReplicaRows, ReplicaApplyError, replicaHead, type ReplicaRow } from './replica-apply';
import { ReplayRegistry, type Replayable } from './replay';
import type { ServiceRuntime } from './runtime';

/** What a service replays, and (on a primary) what it attaches to its rows. */
export interface ReplicaEndpointSpec {
  /** every aggregate of the service, with its own projection */
  replayables: readonly Replayable[];
  /** key material these (opened) events need beyond the log, barrier-encrypted as stored */
  exportAttachments?: (events: readonly ReplicaExportEvent[]) => Promise<ReplicaAttachment[]>;
  /**
   * Called as an apply or wipe starts and again once it settled: rows change here outside the
   * service's own appends, so a service caching its read model (kv's read fence) must look again.
   */
  onChanged?: () => void;
  /**
   * Where the primary's rows are kept, when not in the service's own log: a service that also
   * writes locally on a secondary (core-sys: its seal, its own tokens) cannot take the primary's
   * WAL indexes into its log, so their rows go verbatim into `<logSchema>.event_log` (the
   * service's migrations create it) and only its read models are shared. Its head is the
   * secondary's position.
   */
  logSchema?: string;
  /**
   * secondary/enable (`scope` all) and re-sync (`replicated`): clears the replicated data; the
   * replica log (`logSchema`) is truncated after it. Default: every table of the schema, in either
   * scope (a service whose own log holds the primary's rows has nothing of its own to keep).
   */
  wipe?: (db: AnyDb, mode: ReplicaMode, scope: ReplicaWipeScope) => Promise<void>;
  /**
   * The service never writes its own log on a DR secondary (with `logSchema`): rows there while
   * the replica log is still empty are the cluster's past as a primary (a demoted or once
   * promoted cluster that `update-primary` points at a new primary). The new primary's stream
   * brings their streams again (its promotion folded them, at other WAL indexes), so the first
   * batch is applied after a wipe, as a re-sync would: projected over the old rows it would
   * collide with them, or leave the writes the new primary never received.
   */
  ownLogStaleOnDr?: boolean;
}

type ReplicaMode = 'dr' | 'performance';

const toRow = (e: ReplicaEvent): ReplicaRow => ({
  wal: e.wal,
  stream: e.stream,
  streamVersion: e.streamVersion,
  type: e.type,
  schemaVersion: e.schemaVersion,
  payload: Buffer.from(e.payload, 'base64'),
  recordedAt: new Date(e.recordedAt),
  hash: e.hash,
  data: e.data,
  ...(e.filtered === true ? { filtered: true } : {}),
});

/**
 * Truncates every table of `schema` but its migration histories and `kept`, in `trx`. (Clearing
 * the event log's migration history made the next start run 0001_event_log_actor again: "column
 * ... already exists".)
 */
export async function truncateSchema(
  trx: AnyTrx,
  schema: string,
  kept: readonly string[] = [],
): Promise<void> {
  const found = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
     where table_schema = ${schema} and table_type = 'BASE TABLE'
     order by table_name`.execute(trx);
  const tables = found.rows.filter(
    (t) => !kept.includes(t.name) && !MIGRATION_TABLE_PREFIXES.some((prefix) => t.name.startsWith(prefix)),
  );
  if (tables.length === 0) return;
  const list = sql.join(tables.map((t) => sql.table(`${schema}.${t.name}`)));
  await sql`truncate ${list}`.execute(trx);
}

/**
 * Clears a service's data on a new secondary: its event log and read models, i.e. every table of
 * its schemas but the migration histories, in one transaction.
 */
export async function wipeServiceData(db: AnyDb, ...schemas: readonly string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const schema of schemas) await truncateSchema(trx, schema);
  });
}

/**
 * Serves the service's side of replication on the transport: on a secondary, applying the
 * primary's rows with the service's own projections (`<schema>.replication.apply`); on a
 * primary, exporting what the rows need beyond the log (`<schema>.replication.export`).
 */
export function serveReplica(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'transport'>,
  spec: ReplicaEndpointSpec,
): { onModuleDestroy(): void } {
  const replay = new ReplayRegistry(spec.replayables);
  const queue = `${runtime.schema}.replication`;
  const logSchema = spec.logSchema ?? runtime.schema;
  const subs: Subscription[] = [
    runtime.transport.serve(replicaApplyContract(runtime.schema), queue, async (req) => {
      if (req.op === 'head') return replicaHead(runtime.db, req.log === 'own' ? runtime.schema : logSchema);
      spec.onChanged?.();
      try {
        return await applyOrWipe(req);
      } finally {
        spec.onChanged?.();
      }
    }),
  ];
  async function applyOrWipe(req: Exclude<ReplicaApplyRequest, { op: 'head' }>) {
    const mode = req.mode ?? 'dr';
    if (req.op === 'wipe') {
      if (spec.wipe) {
        await spec.wipe(runtime.db, mode, req.scope ?? 'all');
        await wipeServiceData(runtime.db, logSchema);
      } else await wipeServiceData(runtime.db, runtime.schema);
      return replicaHead(runtime.db, logSchema);
    }
    if (spec.ownLogStaleOnDr && mode === 'dr' && req.events[0]?.wal === 1 && (await ownLogStale())) {
      if (spec.wipe) await spec.wipe(runtime.db, mode, 'all');
      await wipeServiceData(runtime.db, logSchema);
    }
    const attachments = new Map(
      Object.entries(req.attachments).map(([name, b64]) => [name, Buffer.from(b64, 'base64')]),
    );
    try {
      return await applyReplicaRows(runtime.db, logSchema, req.events.map(toRow), (trx, events) =>
        replay.project(trx, events, { attachments, mode }),
      );
    } catch (error) {
      // the replication service re-streams (gap, hash) or re-syncs (diverged) on this answer
      if (error instanceof ReplicaApplyError)
        throw new DomainError('precondition_failed', error.message, {
          reason: error.reason,
          wal: error.wal,
        });
      throw error;
    }
  }
  /** rows in the own log, none yet in the replica log beside it (see ownLogStaleOnDr) */
  async function ownLogStale(): Promise<boolean> {
    const [replica, own] = await Promise.all([
      replicaHead(runtime.db, logSchema),
      replicaHead(runtime.db, runtime.schema),
    ]);
    return logSchema !== runtime.schema && replica.lastWal === 0 && own.lastWal > 0;
  }
  const exportAttachments = spec.exportAttachments;
  if (exportAttachments) {
    subs.push(
      runtime.transport.serve(replicaExportContract(runtime.schema), queue, async (req) => ({
        attachments: await exportAttachments(req.events),
      })),
    );
  }
  return { onModuleDestroy: () => subs.forEach((s) => s.unsubscribe()) };
}

/**
 * A Nest provider (plain object: this lib needs no Nest) serving the service's replica endpoint,
 * built from the providers named in `inject` (its projections, its cipher helpers).
 */
export function replicaEndpointProvider<D extends unknown[]>(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'transport'>,
  inject: Array<string | symbol | (abstract new (...args: never[]) => unknown)>,
  build: (...deps: D) => ReplicaEndpointSpec,
) {
  return {
    provide: Symbol(`${runtime.schema} replica endpoint`),
    useFactory: (...deps: D) => serveReplica(runtime, build(...deps)),
    inject,
  };
}
