import { sql, type Kysely, type Migration } from 'kysely';
import {
  replicaFoldContract,
  replicaLogSchemaOf,
  type ReplicaFoldEvent,
  type ReplicaFoldResponse,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import type { Subscription } from '@coffer/transport';
import type { EventStore } from './event-store';
import type { AnyDb, AnyTrx } from './event-store-types';
import { EVENT_LOG_TABLE } from './event-log.table';
import { eventLogMigration } from './migrations/0000_event_log';
import { eventLogActorMigration } from './migrations/0001_event_log_actor';
import { planStreamFolds } from './replica-fold-plan';
import { serveReplica, wipeServiceData, type ReplicaEndpointSpec } from './replica-endpoint';
import { rebuildFromOwnLog, type RebuildKept } from './replica-rebuild';
import { ReplayRegistry } from './replay';
import type { ServiceRuntime } from './runtime';

/**
 * The replica log of a service that keeps writing locally on a secondary (every service of
 * REPLICATED_SERVICES): `<schema>_replica` with an event log of the event store's shape (the
 * primary's rows keep their WAL indexes and hash chain there, its head is the secondary's
 * position) and the promotion fold's progress. One migration of the service's own list, so the
 * schema exists before the service serves; frozen like every migration.
 */
export function replicaLogMigration(serviceSchema: string): Migration {
  const schema = replicaLogSchemaOf(serviceSchema);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      await eventLogMigration(schema).up(db);
      await eventLogActorMigration(schema).up(db);
      await db.schema
        .withSchema(schema)
        .createTable('replica_folded')
        .addColumn('stream', 'text', (c) => c.primaryKey())
        .addColumn('version', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .withSchema(schema)
        .createTable('replica_fold_position')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('through_wal', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    },
  };
}

/** What an engine keeping a replica log declares: its replay, and what its fold takes. */
export interface EngineReplicaSpec extends Pick<
  ReplicaEndpointSpec,
  'replayables' | 'exportAttachments' | 'onChanged'
> {
  /**
   * Which replicated events a promotion folds into the own log: those the replay projected in
   * `mode` (what a performance secondary keeps local on its primary, e.g. issued certificates,
   * was not). Default: every event.
   */
  foldable?: (event: Pick<ReplicaFoldEvent, 'type' | 'stream'>, mode: ReplicationMode) => boolean;
  /**
   * Whether a re-sync of a performance secondary rebuilds the read models from the engine's own
   * log (rebuildFromOwnLog), keeping what the cluster wrote itself. Default: yes, unless the
   * engine attaches material its log lacks (`exportAttachments`: kept only in read models, so
   * its own events could not be projected again); then a re-sync clears all, as an enable does.
   */
  rebuildsFromOwnLog?: boolean;
  /**
   * What such a rebuild leaves in place: an `exportAttachments` engine that rebuilds keeps its
   * attachments' table (the material of its own events) and prunes it after (RebuildKept).
   */
  keptByRebuild?: RebuildKept;
  /**
   * The mount uuid of a stream, for an engine that purges a disabled mount's rows outside its log
   * (its events of a purged mount are then not projected again by a rebuild).
   */
  mountOf?: (stream: string) => string | undefined;
}

/** `<kind>/<mount uuid>/...` → the mount uuid: the streams of the mount-keyed engines. */
export const mountOfStream = (stream: string): string | undefined => stream.split('/')[1] || undefined;

/**
 * Serves an engine's side of replication with a replica log beside its own: the replica
 * endpoint (apply into `<schema>_replica`, projected with the engine's own projections; a wipe,
 * see below) and the promotion fold (`<schema>.replication.fold`): the replicated streams the
 * engine did not write itself go into its own log at its own versions, each append recording
 * only its progress (the read models hold them already). Idempotent and resumable, like core-sys's.
 *
 * Wipes, in one transaction each: `all` (secondary/enable: a new secondary drops what it held)
 * clears the engine's schema and the replica log. `replicated` (a re-sync) on a performance
 * secondary clears the replica log and the read models and rebuilds them from the own log
 * (rebuildFromOwnLog): its local certificates, OTPs, credentials' records and codes, kv's local
 * mounts and cubbyholes (their data keys kept, `keptByRebuild`) stay. On a
 * DR secondary a re-sync clears all, as an enable: a DR secondary writes nothing of its own (Vault
 * replicates even local storage to it), so its own log can only hold what it wrote as a primary
 * before a demotion or folded at a promotion, which the new primary's log brings again where the
 * new primary has it (projected twice, a certificate would be issued twice: duplicate key), and
 * what it lacks is lost by the re-sync's definition (docs/replication.md, "Split brain").
 */
export function serveEngineReplica(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'transport'>,
  store: Pick<EventStore, 'append' | 'readFrom'>,
  spec: EngineReplicaSpec,
): { onModuleDestroy(): void } {
  const replicaSchema = replicaLogSchemaOf(runtime.schema);
  const rebuilds = spec.rebuildsFromOwnLog ?? spec.exportAttachments === undefined;
  const replay = new ReplayRegistry(spec.replayables);
  const endpoint = serveReplica(runtime, {
    replayables: spec.replayables,
    // the primary's replication service asks every replayed service for its attachments
    exportAttachments: spec.exportAttachments ?? (() => Promise.resolve([])),
    ...(spec.onChanged ? { onChanged: spec.onChanged } : {}),
    logSchema: replicaSchema,
    // serveReplica truncates the replica log again after this: already empty
    wipe: async (db, mode, scope) => {
      if (scope === 'replicated' && mode === 'performance' && rebuilds) {
        const { mountOf, keptByRebuild } = spec;
        await rebuildFromOwnLog({
          db,
          schema: runtime.schema,
          replicaSchema,
          store,
          replay,
          ...(mountOf ? { mountOf } : {}),
          ...(keptByRebuild ? { kept: keptByRebuild } : {}),
        });
      } else await wipeServiceData(db, runtime.schema, replicaSchema);
    },
    // an engine writes locally on a performance secondary only (Vault's local storage)
    ownLogStaleOnDr: true,
  });
  const fold = new ReplicaFold(runtime.db, runtime.schema, replicaSchema, store, spec.foldable);
  const sub: Subscription = runtime.transport.serve(
    replicaFoldContract(runtime.schema),
    `${runtime.schema}.replication`,
    (req) => (req.op === 'position' ? fold.position() : fold.fold(req.mode, req.events, req.through)),
  );
  return {
    onModuleDestroy: () => {
      sub.unsubscribe();
      endpoint.onModuleDestroy();
    },
  };
}

/**
 * A Nest provider (plain object: this lib needs no Nest) serving an engine's replica endpoint and
 * fold: `storeToken` is the engine's EventStore, `inject` the providers `build` takes.
 */
export function engineReplicaProvider<D extends unknown[]>(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'transport'>,
  storeToken: string | symbol,
  inject: Array<string | symbol | (abstract new (...args: never[]) => unknown)>,
  build: (...deps: D) => EngineReplicaSpec,
) {
  return {
    provide: Symbol(`${runtime.schema} engine replica`),
    useFactory: (store: EventStore, ...deps: D) => serveEngineReplica(runtime, store, build(...deps)),
    inject: [storeToken, ...inject],
  };
}

class ReplicaFold {
  constructor(
    private readonly db: AnyDb,
    private readonly ownSchema: string,
    private readonly replicaSchema: string,
    private readonly store: Pick<EventStore, 'append'>,
    private readonly foldable: EngineReplicaSpec['foldable'],
  ) {}

  private table(name: string) {
    return sql.table(`${this.replicaSchema}.${name}`);
  }

  async position(): Promise<ReplicaFoldResponse> {
    const { rows } = await sql<{ through: string | number }>`
      select through_wal as through from ${this.table('replica_fold_position')} where id = 1`.execute(
      this.db,
    );
    return { foldedThrough: Number(rows[0]?.through ?? 0), appended: 0 };
  }

  async fold(
    mode: ReplicationMode,
    events: readonly ReplicaFoldEvent[],
    through: number,
  ): Promise<ReplicaFoldResponse> {
    const foldable = this.foldable;
    const candidates = foldable ? events.filter((e) => foldable(e, mode)) : events;
    const streams = [...new Set(candidates.map((e) => e.stream))];
    const plans = planStreamFolds(candidates, await this.folded(streams), await this.ownVersions(streams));
    // submitted together: the store's group commit takes them in a few transactions, in order
    await Promise.all(
      plans.map((plan) =>
        this.store.append(
          plan.stream,
          plan.events.map((e) => ({ type: e.type, version: e.schemaVersion, data: e.data })),
          {
            expectedVersion: plan.expectedVersion,
            project: (trx) => this.markFolded(trx, plan.stream, plan.foldedTo),
          },
        ),
      ),
    );
    await sql`
      insert into ${this.table('replica_fold_position')} (id, through_wal) values (1, ${through})
      on conflict (id) do update set through_wal = greatest(excluded.through_wal,
        ${this.table('replica_fold_position')}.through_wal)`.execute(this.db);
    const appended = plans.reduce((n, plan) => n + plan.events.length, 0);
    return { foldedThrough: (await this.position()).foldedThrough, appended };
  }

  private async markFolded(trx: AnyTrx, stream: string, version: number): Promise<void> {
    await sql`
      insert into ${this.table('replica_folded')} (stream, version) values (${stream}, ${version})
      on conflict (stream) do update set version = excluded.version`.execute(trx);
  }

  /** The former primary's version each of `streams` was folded up to (no entry: never folded). */
  private async folded(streams: readonly string[]): Promise<Map<string, number>> {
    if (streams.length === 0) return new Map();
    const { rows } = await sql<{ stream: string; version: number }>`
      select stream, version from ${this.table('replica_folded')}
       where stream in (${sql.join(streams)})`.execute(this.db);
    return new Map(rows.map((r) => [r.stream, Number(r.version)]));
  }

  /** The versions of `streams` in the service's own log (absent: never written). */
  private async ownVersions(streams: readonly string[]): Promise<Map<string, number>> {
    if (streams.length === 0) return new Map();
    const { rows } = await sql<{ stream: string; version: number | string }>`
      select stream, max(stream_version) as version
        from ${sql.table(`${this.ownSchema}.${EVENT_LOG_TABLE}`)}
       where stream in (${sql.join(streams)}) group by stream`.execute(this.db);
    return new Map(rows.map((r) => [r.stream, Number(r.version)]));
  }
}
