import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';
import type { IdentityDatabase } from './identity/identity.table';
import type { IdentityGroupDatabase } from './identity/group.table';
import type { LeasesDatabase } from './leases/lease.table';
import type { PasswordPoliciesDatabase } from './password-policies/password-policy.table';
import type { MountsDatabase } from './mounts/mounts.table';
import type { PoliciesDatabase } from './policies/policy.table';
import type { SealDatabase } from './seal/seal.table';
import type { TokenDatabase } from './tokens/token.table';
import type { TokenRoleDatabase } from './token-roles/token-role.table';
import type { UserpassDatabase } from './userpass/userpass.table';
import type { ApproleDatabase } from './approle/approle.table';
import type { AuditDatabase } from './audit/audit.table';
import type { RekeyDatabase } from './rekey/rekey.table';
import type { PluginCatalogDatabase } from './plugins/plugin-catalog.table';
import type { PluginStorageDatabase } from './plugins/plugin-storage.table';
import type { SentinelPoliciesDatabase } from './sentinel-policies/sentinel-policy.table';
import type { NamespacesDatabase } from './namespaces/namespace.table';
import type { HaStatusDatabase } from './ha-status/ha-node.table';
import type { HistoryDatabase } from './history/history.table';
import type { ReplicaSealedDatabase } from './replication/replica-sealed.table';
import type { ReplicaFoldDatabase } from './replication/replica-fold.table';

/** Every read-model table of the core_sys schema, each row type written once in its `*.table.ts`. */
export interface CoreSysDatabase
  extends
    SealDatabase,
    MountsDatabase,
    PoliciesDatabase,
    TokenDatabase,
    UserpassDatabase,
    IdentityDatabase,
    IdentityGroupDatabase,
    TokenRoleDatabase,
    ApproleDatabase,
    AuditDatabase,
    LeasesDatabase,
    RekeyDatabase,
    PluginCatalogDatabase,
    PluginStorageDatabase,
    PasswordPoliciesDatabase,
    SentinelPoliciesDatabase,
    NamespacesDatabase,
    HaStatusDatabase,
    HistoryDatabase,
    ReplicaSealedDatabase,
    ReplicaFoldDatabase {}

/** A projection's transaction, typed. */
export type CoreSysTrx = Transaction<CoreSysDatabase>;

/** core_sys's typed view of the shared pool: what every core-sys repository queries. */
export class CoreSysDb extends ServiceDb<CoreSysDatabase> {}
