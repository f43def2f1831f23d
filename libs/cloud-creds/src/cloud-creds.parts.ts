import type { ServiceAggregate } from '@coffer/event-store';
import type { Migration } from 'kysely';
import { cloudAParts } from './cloud-a/cloud-a.parts';
import { cloudBParts } from './cloud-b/cloud-b.parts';

/** The mount types the cloud-creds service hosts. */
export const CLOUD_CREDS_PARTS = [cloudAParts, cloudBParts] as const;

/** Every aggregate of the cloud-creds event log. */
export const CLOUD_CREDS_LOGS: readonly ServiceAggregate[] = CLOUD_CREDS_PARTS.flatMap((part) => part.logs);

/** Migration history of the "cloud_creds" schema (event log tables are created by the event store). */
export const cloudCredsMigrations: Record<string, Migration> = Object.assign(
  {},
  ...CLOUD_CREDS_PARTS.map((part) => part.migrations),
) as Record<string, Migration>;
