import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { aclPoliciesMigration } from './migrations/0030_acl_policies';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { POLICY_LOG } from './policy.events';
import { PolicyHandlers } from './policy.handlers';
import { PolicyEventLog, PolicyProjection } from './policy.projection';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';

export const policiesProviders: Provider[] = [
  PolicyRepository,
  PolicyProjection,
  writerProvider(PolicyEventLog, CORE_SYS_EVENT_STORE, POLICY_LOG, PolicyProjection),
  PolicyService,
];
export const policiesControllers: Type[] = [PolicyHandlers];
export const policiesMigrations: Record<string, Migration> = {
  '0030_acl_policies': aclPoliciesMigration,
};

export { PolicyService } from './policy.service';
