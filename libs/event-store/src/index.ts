export * from './event-store-types';
export * from './runtime';
export { createPgDb, pingPostgres, type DbHandle, type PgDbOptions } from './pg-db';
export { createPgliteDb, type PgliteDbHandle, type PgliteDbOptions } from './pglite-db';
export {
  migrateFromSnapshot,
  migrationsKey,
  pgliteSnapshotFile,
  startPgliteFromSnapshot,
  type SchemaMigrations,
} from './pglite-snapshot';
export { parseSafeInteger, parseNumeric } from './type-parsers';
export { migrateSchema } from './migrate';
export { EVENT_LOG_MIGRATION, eventLogMigration } from './migrations/0000_event_log';
export { eventLogActorMigration } from './migrations/0001_event_log_actor';
export {
  defineEvent,
  priorVersion,
  EventRegistry,
  EventSchemaError,
  type EventDefinition,
} from './event-registry';
export {
  ConcurrencyError,
  isConcurrencyError,
  isConflict,
  retryOnConflict,
  type RetryOptions,
} from './concurrency';
export { chainHash, GENESIS_HASH, type HashedFields } from './hash';
export { EventStore, type EventStoreOptions, type ReplicaLogOptions } from './event-store';
export {
  AggregateWriter,
  createServiceEventStore,
  defineAggregateLog,
  noProjection,
  versionAfter,
  writerProvider,
  type AggregateLog,
  type AppendedOf,
  type EventOf,
  type EventTable,
  type Projection,
  type ServiceAggregate,
} from './aggregate-log';
export { ServiceDb } from './service-db';
export { STREAM_VERSION_CONSTRAINT, type EventLogDb, type EventLogTable } from './event-log.table';
export { inBatchSpan, ATTR_BATCH_SIZE } from './batch-span';
export { AppendLink, type AppendLinkState } from './append-link';
export {
  applyReplicaRows,
  openReplicaPayload,
  openedReplicaEvent,
  replicaHead,
  ReplicaApplyError,
  type ReplicaProjector,
  type ReplicaRow,
} from './replica-apply';
export {
  replayable,
  ReplayError,
  ReplayRegistry,
  type Replayable,
  type ReplayContext,
  type ReplayKeyOf,
  type ReplayKeysOf,
} from './replay';
export {
  serveReplica,
  replicaEndpointProvider,
  wipeServiceData,
  type ReplicaEndpointSpec,
} from './replica-endpoint';
export { rebuildFromOwnLog, type OwnLogRebuild, type RebuildKept } from './replica-rebuild';
export * from './merkle-tree';
export { MerkleFrontier } from './merkle-frontier';
export * from './merkle-verify';
export { EventLogReader, type ChainedRawEvent, type ChangeQuery, type ChangeRow } from './event-log-reader';
export { planStreamFolds, type FoldedEvent, type StreamFold } from './replica-fold-plan';
export {
  engineReplicaProvider,
  mountOfStream,
  replicaLogMigration,
  serveEngineReplica,
  type EngineReplicaSpec,
} from './engine-replica';
export { mergeByTime, openReplicaRows, ReplicaHistory } from './replica-history';
