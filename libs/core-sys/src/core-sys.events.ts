import type { ServiceAggregate } from '@coffer/event-store';
import { IDENTITY_LOG } from './identity/identity.events';
import { MOUNTS_LOG } from './mounts/mounts.events';
import { POLICY_LOG } from './policies/policy.events';
import { TOKEN_LOG, TOKEN_SALT_LOG } from './tokens/token.events';
import { USERPASS_LOG } from './userpass/userpass.events';
import { WRAPPING_LOG } from './wrapping/wrapping.events';

/** Every aggregate of the core_sys event log: the service's registry is composed of these. */
export const CORE_SYS_LOGS: readonly ServiceAggregate[] = [
  MOUNTS_LOG,
  POLICY_LOG,
  TOKEN_LOG,
  TOKEN_SALT_LOG,
  USERPASS_LOG,
  IDENTITY_LOG,
  WRAPPING_LOG,
];
