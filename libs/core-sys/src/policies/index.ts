import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { aclPoliciesMigration } from './migrations/0030_acl_policies';
import { PolicyHandlers } from './policy.handlers';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';

export const policiesProviders: Provider[] = [PolicyRepository, PolicyService];
export const policiesControllers: Type[] = [PolicyHandlers];
export const policiesMigrations: Record<string, Migration> = {
  '0030_acl_policies': aclPoliciesMigration,
};

export { PolicyService, policyEventTypes } from './policy.service';
