export interface AclPoliciesTable {
  name: string;
  policy: string;
  /** version of the policy's stream (`policy/acl/<name>`) */
  version: number;
  updated_at: Date;
}

export interface PoliciesDatabase {
  acl_policies: AclPoliciesTable;
}
