import type { Migration } from 'kysely';
import { sealMigrations } from './seal';
import { mountsMigrations } from './mounts';
import { policiesMigrations } from './policies';
import { tokensMigrations } from './tokens';
import { tokenRolesMigrations } from './token-roles';
import { userpassMigrations } from './userpass';
import { identityMigrations } from './identity';
import { approleMigrations } from './approle';
import { auditMigrations } from './audit';
import { leasesMigrations } from './leases';
import { rekeyMigrations } from './rekey';
import { pluginsMigrations } from './plugins';
import { passwordPoliciesMigrations } from './password-policies';
import { sentinelPoliciesMigrations } from './sentinel-policies';
import { namespacesMigrations } from './namespaces';
import { haStatusMigrations } from './ha-status';
import { historyMigrations } from './history';
import { replicationMigrations } from './replication';

/** One migration history for the core_sys schema; names are globally ordered by prefix. */
export const coreSysMigrations: Record<string, Migration> = {
  ...sealMigrations,
  ...mountsMigrations,
  ...policiesMigrations,
  ...tokensMigrations,
  ...userpassMigrations,
  ...identityMigrations,
  ...tokenRolesMigrations,
  ...approleMigrations,
  ...auditMigrations,
  ...leasesMigrations,
  ...rekeyMigrations,
  ...pluginsMigrations,
  ...passwordPoliciesMigrations,
  ...sentinelPoliciesMigrations,
  ...namespacesMigrations,
  ...haStatusMigrations,
  ...historyMigrations,
  ...replicationMigrations,
};
export const CORE_SYS_SCHEMA = 'core_sys';
