import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { sentinelPoliciesMigration } from './migrations/0150_sentinel_policies';
import { SENTINEL_POLICY_LOG } from './sentinel-policy.events';
import { SentinelPolicyHandlers } from './sentinel-policy.handlers';
import { SentinelPolicyEventLog, SentinelPolicyProjection } from './sentinel-policy.projection';
import { SentinelPolicyRepository } from './sentinel-policy.repository';
import { SentinelPolicyService } from './sentinel-policy.service';
import { SentinelTokenFactsRepository } from './sentinel-token-facts.repository';

export const sentinelPoliciesProviders: Provider[] = [
  SentinelPolicyRepository,
  SentinelPolicyProjection,
  writerProvider(SentinelPolicyEventLog, CORE_SYS_EVENT_STORE, SENTINEL_POLICY_LOG, SentinelPolicyProjection),
  SentinelPolicyService,
  SentinelTokenFactsRepository,
];
export const sentinelPoliciesControllers: Type[] = [SentinelPolicyHandlers];
export const sentinelPoliciesMigrations: Record<string, Migration> = {
  '0150_sentinel_policies': sentinelPoliciesMigration,
};
