import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { passwordPoliciesMigration } from './migrations/0135_password_policies';
import { PASSWORD_POLICY_LOG } from './password-policy.events';
import { PasswordPolicyHandlers } from './password-policy.handlers';
import { PasswordPolicyEventLog, PasswordPolicyProjection } from './password-policy.projection';
import { PasswordPolicyRepository } from './password-policy.repository';
import { PasswordPolicyService } from './password-policy.service';

export const passwordPoliciesProviders: Provider[] = [
  PasswordPolicyRepository,
  PasswordPolicyProjection,
  writerProvider(PasswordPolicyEventLog, CORE_SYS_EVENT_STORE, PASSWORD_POLICY_LOG, PasswordPolicyProjection),
  PasswordPolicyService,
];
export const passwordPoliciesControllers: Type[] = [PasswordPolicyHandlers];
export const passwordPoliciesMigrations: Record<string, Migration> = {
  '0135_password_policies': passwordPoliciesMigration,
};
export { PASSWORD_POLICY_LOG } from './password-policy.events';
