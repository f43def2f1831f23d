import { replicaLogMigration, type ServiceAggregate } from '@coffer/event-store';
import type { Migration } from 'kysely';
import { CLOUD_CREDS_SCHEMA } from './cloud-creds.di';
import { cloudAParts } from './cloud-a/cloud-a.parts';
import { cloudBParts } from './cloud-b/cloud-b.parts';

/** The mount types the cloud-creds service hosts. */
export const CLOUD_CREDS_PARTS = [cloudAParts, cloudBParts] as const;

/** Every aggregate of the cloud-creds event log. */
export const CLOUD_CREDS_LOGS: readonly ServiceAggregate[] = CLOUD_CREDS_PARTS.flatMap((part) => part.logs);

/**
 * Migration history of the "cloud_creds" schema (event log tables are created by the event store),
 * then the replica log a secondary keeps the primary's rows in (`cloud_creds_replica`, 0200).
 */
export const cloudCredsMigrations: Record<string, Migration> = Object.assign(
  {},
  ...CLOUD_CREDS_PARTS.map((part) => part.migrations),
  { '0200_cloud_creds_replica_log': replicaLogMigration(CLOUD_CREDS_SCHEMA) },
) as Record<string, Migration>;
