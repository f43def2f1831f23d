import type { ServiceAggregate } from '@coffer/event-store';
import { IDENTITY_LOG } from './identity/identity.events';
import { GROUP_LOG } from './identity/group.events';
import { LEASE_LOG } from './leases/lease.events';
import { MOUNTS_LOG } from './mounts/mounts.events';
import { POLICY_LOG } from './policies/policy.events';
import { TOKEN_LOG, TOKEN_SALT_LOG } from './tokens/token.events';
import { TOKEN_ROLE_LOG } from './token-roles/token-role.events';
import { USERPASS_LOG } from './userpass/userpass.events';
import { APPROLE_ROLE_LOG, APPROLE_SALT_LOG, APPROLE_SECRET_ID_LOG } from './approle/approle.events';
import { AUDIT_LOG } from './audit/audit.events';
import { WRAPPING_LOG } from './wrapping/wrapping.events';
import { PLUGIN_CATALOG_LOG, PLUGIN_STORAGE_LOG } from './plugins/plugin.events';
import { PASSWORD_POLICY_LOG } from './password-policies/password-policy.events';
import { SENTINEL_POLICY_LOG } from './sentinel-policies/sentinel-policy.events';
import { NAMESPACE_LOG } from './namespaces/namespace.events';
import { HISTORY_KEY_LOG } from './history/history-key.events';

/** Every aggregate of the core_sys event log: the service's registry is composed of these. */
export const CORE_SYS_LOGS: readonly ServiceAggregate[] = [
  MOUNTS_LOG,
  POLICY_LOG,
  TOKEN_LOG,
  TOKEN_SALT_LOG,
  TOKEN_ROLE_LOG,
  USERPASS_LOG,
  IDENTITY_LOG,
  GROUP_LOG,
  APPROLE_ROLE_LOG,
  APPROLE_SECRET_ID_LOG,
  APPROLE_SALT_LOG,
  AUDIT_LOG,
  LEASE_LOG,
  WRAPPING_LOG,
  PLUGIN_CATALOG_LOG,
  PLUGIN_STORAGE_LOG,
  PASSWORD_POLICY_LOG,
  SENTINEL_POLICY_LOG,
  NAMESPACE_LOG,
  HISTORY_KEY_LOG,
];
