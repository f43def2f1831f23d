import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0070 from './migrations/0070_identity';
import * as m0120 from './migrations/0120_identity_groups';
import * as m0121 from './migrations/0121_identity_merges';
import { EntityMergeService } from './entity-merge.service';
import { GroupAdminService } from './group-admin.service';
import { GroupAliasAdminService } from './group-alias-admin.service';
import { GROUP_LOG } from './group.events';
import { GroupHandlers } from './group.handlers';
import { GroupEventLog, GroupProjection } from './group.projection';
import { GroupRepository } from './group.repository';
import { GroupService } from './group.service';
import { IdentityLookupService } from './identity-lookup.service';
import { AliasAdminService } from './alias-admin.service';
import { EntityAdminService } from './entity-admin.service';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { IDENTITY_LOG } from './identity.events';
import { IdentityHandlers } from './identity.handlers';
import { IdentityEventLog, IdentityProjection } from './identity.projection';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';
import { LoginAliasForwarder } from './login-alias-forwarder';

export const identityProviders: Provider[] = [
  IdentityRepository,
  IdentityProjection,
  writerProvider(IdentityEventLog, CORE_SYS_EVENT_STORE, IDENTITY_LOG, IdentityProjection),
  IdentityService,
  LoginAliasForwarder,
  EntityAdminService,
  AliasAdminService,
  GroupRepository,
  GroupProjection,
  writerProvider(GroupEventLog, CORE_SYS_EVENT_STORE, GROUP_LOG, GroupProjection),
  GroupService,
  GroupAdminService,
  GroupAliasAdminService,
  IdentityLookupService,
  EntityMergeService,
];
export const identityControllers: Type[] = [IdentityHandlers, GroupHandlers];
export const identityMigrations: Record<string, Migration> = {
  '0070_identity': m0070,
  '0120_identity_groups': m0120,
  '0121_identity_merges': m0121,
};

export { IdentityService, type EntityStanding } from './identity.service';
