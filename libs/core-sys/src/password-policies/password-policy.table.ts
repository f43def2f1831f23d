export interface PasswordPoliciesTable {
  name: string;
  /** the policy's HCL */
  policy: string;
  updated_at: Date;
}

export interface PasswordPoliciesDatabase {
  password_policies: PasswordPoliciesTable;
}
