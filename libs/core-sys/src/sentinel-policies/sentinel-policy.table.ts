import type { ColumnType } from 'kysely';
import type { SentinelEnforcementLevel } from '@coffer/contracts';

/** jsonb column: read back parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export type SentinelPolicyKind = 'rgp' | 'egp';

export interface SentinelPoliciesTable {
  kind: SentinelPolicyKind;
  name: string;
  policy: string;
  enforcement_level: SentinelEnforcementLevel;
  /** EGP paths as written ("secret/*", "*"); [] for RGPs */
  paths: Json<string[]>;
  /** version of the policy's stream (`policy/<kind>/<name>`) */
  version: number;
  updated_at: Date;
}

export interface SentinelPoliciesDatabase {
  sentinel_policies: SentinelPoliciesTable;
}
