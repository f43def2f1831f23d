import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0070 from './migrations/0070_identity';
import { AliasAdminService } from './alias-admin.service';
import { EntityAdminService } from './entity-admin.service';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { IDENTITY_LOG } from './identity.events';
import { IdentityHandlers } from './identity.handlers';
import { IdentityEventLog, IdentityProjection } from './identity.projection';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';

export const identityProviders: Provider[] = [
  IdentityRepository,
  IdentityProjection,
  writerProvider(IdentityEventLog, CORE_SYS_EVENT_STORE, IDENTITY_LOG, IdentityProjection),
  IdentityService,
  EntityAdminService,
  AliasAdminService,
];
export const identityControllers: Type[] = [IdentityHandlers];
export const identityMigrations: Record<string, Migration> = {
  '0070_identity': m0070,
};

export { IdentityService, type EntityStanding } from './identity.service';
