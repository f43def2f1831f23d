import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import * as m0110 from './migrations/0110_leases';
import { LEASE_LOG } from './lease.events';
import { LeaseHandlers } from './lease.handlers';
import { LeasePresenceHandlers } from './lease-presence.handlers';
import { DEFAULT_LEASE_MANAGER_SETTINGS, LEASE_MANAGER_SETTINGS, LeaseManager } from './lease-manager';
import { LeaseEventLog, LeaseProjection } from './lease.projection';
import { LeaseRepository } from './lease.repository';
import { DEFAULT_REVOCATION_POLICY, LEASE_REVOCATION_POLICY, LeaseService } from './lease.service';

export const leasesProviders: Provider[] = [
  LeaseRepository,
  LeaseProjection,
  writerProvider(LeaseEventLog, CORE_SYS_EVENT_STORE, LEASE_LOG, LeaseProjection),
  LeaseService,
  { provide: LEASE_REVOCATION_POLICY, useValue: DEFAULT_REVOCATION_POLICY },
  LeaseManager,
  { provide: LEASE_MANAGER_SETTINGS, useValue: DEFAULT_LEASE_MANAGER_SETTINGS },
];
export const leasesControllers: Type[] = [LeaseHandlers, LeasePresenceHandlers];
export const leasesMigrations: Record<string, Migration> = {
  '0110_leases': m0110,
};

export { LeaseService, LEASE_REVOCATION_POLICY } from './lease.service';
export type { RevocationPolicy } from './lease.decider';
export { LeaseManager, LEASE_MANAGER_SETTINGS, type LeaseManagerSettings } from './lease-manager';
