import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0070 from './migrations/0070_identity';
import { AliasAdminService } from './alias-admin.service';
import { EntityAdminService } from './entity-admin.service';
import { IdentityEventLog } from './identity-event-log';
import { IdentityHandlers } from './identity.handlers';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';

export const identityProviders: Provider[] = [
  IdentityRepository,
  IdentityEventLog,
  IdentityService,
  EntityAdminService,
  AliasAdminService,
];
export const identityControllers: Type[] = [IdentityHandlers];
export const identityMigrations: Record<string, Migration> = {
  '0070_identity': m0070,
};

export { IdentityService, type EntityStanding } from './identity.service';
export { identityEventTypes } from './identity-event-log';
