import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import {
  createServiceEventStore,
  EventLogReader,
  type EventStore,
  type ServiceRuntime,
} from '@coffer/event-store';
import { CORE_SYS_LOGS } from '../core-sys.events';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { CoreSysDb } from '../core-sys.table';
import { HistoryHandlers } from './history.handlers';
import { HistoryIndexer } from './history-indexer';
import { HistoryKey } from './history-key';
import { HistoryProofService } from './history-proof.service';
import { HistoryStateRepository } from './history-state.repository';
import { HistoryStateService } from './history-state.service';
import { HistoryAccessService } from './history-access.service';
import { HistoryEngines } from './history-engines';
import { HistoryFolds } from './history-folds';
import { HistoryIdentity } from './history-identity';
import { AuthMethodsHistory } from './auth-methods-history.service';
import { PluginHistory } from './plugin-history.service';
import { HistoryChangesService } from './history-changes.service';
import { MerkleIndexRepository } from './merkle-index.repository';
import { MerkleIndex } from './merkle-index.service';
import { historyMerkleMigration } from './migrations/0180_history_merkle';
import { historyAccessIndexMigration } from './migrations/0191_history_access_index';
import { historyPolicySpansMigration } from './migrations/0196_history_policy_spans';
import { historyStreamPrefixMigration } from './migrations/0200_history_stream_prefix';
import { HistoryAccessIndexRepository } from './history-access-index.repository';
import { HistoryAccessIndex } from './history-access-index.service';
import { HistoryPolicyCache } from './history-policy-cache';
import { HistoryPolicyWarmer } from './history-policy-warmer.service';

export const historyProviders: Provider[] = [
  {
    provide: EventLogReader,
    useFactory: (runtime: ServiceRuntime) => new EventLogReader(runtime.db),
    inject: [SERVICE_RUNTIME],
  },
  MerkleIndexRepository,
  MerkleIndex,
  HistoryKey,
  HistoryProofService,
  HistoryStateRepository,
  HistoryFolds,
  HistoryIdentity,
  AuthMethodsHistory,
  PluginHistory,
  HistoryEngines,
  HistoryAccessIndexRepository,
  HistoryAccessIndex,
  HistoryPolicyCache,
  HistoryPolicyWarmer,
  HistoryStateService,
  HistoryAccessService,
  HistoryChangesService,
  HistoryIndexer,
];
export const historyControllers: Type[] = [HistoryHandlers];
export const historyMigrations: Record<string, Migration> = {
  '0180_history_merkle': historyMerkleMigration,
  '0191_history_access_index': historyAccessIndexMigration,
  '0196_history_policy_spans': historyPolicySpansMigration,
  '0200_history_stream_prefix': historyStreamPrefixMigration,
};
export { HISTORY_KEY_LOG } from './history-key.events';
export { MERKLE_STORED_LEVEL } from './merkle-index.service';

/** The Merkle index on its own, wired as the module wires it (benchmarks). */
export function createMerkleIndex(runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'clock'>): MerkleIndex {
  return new MerkleIndex(
    runtime,
    new EventLogReader(runtime.db),
    new MerkleIndexRepository(new CoreSysDb(runtime)),
  );
}
export type { MerkleIndex };

/** The core_sys event store on its own (benchmarks: a log of real events, appended in bulk). */
export function createCoreSysEventStore(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'cipher' | 'clock'>,
): EventStore {
  return createServiceEventStore(runtime, CORE_SYS_LOGS);
}

/** State at a time and who-could-read, wired as the module wires them (benchmarks). */
export function createHistoryQueries(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'clock'>,
  store: EventStore,
): {
  states: HistoryStateService;
  access: HistoryAccessService;
  index: HistoryAccessIndex;
  warmer: HistoryPolicyWarmer;
} {
  const reader = new EventLogReader(runtime.db);
  const db = new CoreSysDb(runtime);
  const snapshots = new HistoryStateRepository(db);
  const folds = new HistoryFolds(store);
  const indexRepo = new HistoryAccessIndexRepository(db);
  const index = new HistoryAccessIndex(runtime, indexRepo, store);
  const cache = new HistoryPolicyCache();
  const identity = new HistoryIdentity(runtime, reader, store, snapshots, new NamespaceRepository(db));
  const authMethods = new AuthMethodsHistory(store);
  const states = new HistoryStateService(
    runtime,
    reader,
    snapshots,
    store,
    folds,
    identity,
    index,
    authMethods,
  );
  return {
    states,
    access: new HistoryAccessService(runtime, states, folds, index, store, cache),
    index,
    warmer: new HistoryPolicyWarmer(indexRepo, store, cache),
  };
}
export type { HistoryStateService, HistoryAccessService, HistoryAccessIndex, HistoryPolicyWarmer };
