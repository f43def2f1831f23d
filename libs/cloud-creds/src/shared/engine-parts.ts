import type { Provider, Type } from '@nestjs/common';
import type { ServiceAggregate } from '@coffer/event-store';
import type { Migration } from 'kysely';
import type { CloudHistoryBackend } from './cloud-history-backend';
import type { CloudLeaseBackend } from './cloud-lease-backend';

/**
 * One mount type's share of the cloud-creds service: the service hosts cloud-a and cloud-b side by
 * side, each in its own folder, composed here so neither imports the other.
 */
export interface EngineParts {
  /** aggregates of the type's event logs (the service's one event store registers them all) */
  logs: readonly ServiceAggregate[];
  /** migrations of the type's read model, named "<number>_cloud_<x>_..." so both sort apart */
  migrations: Record<string, Migration>;
  providers: Provider[];
  controllers: Type[];
  /** the type's lease calls (`cloud-creds.lease.*` is one subject pair: CloudCredsLeaseHandlers dispatches by mount type) */
  leaseBackends?: Type<CloudLeaseBackend>[];
  /** the type's history of its paths (`cloud-creds.history.state`: CloudCredsHistoryHandlers dispatches by mount type) */
  historyBackends?: Type<CloudHistoryBackend>[];
}
