import { z } from 'zod';

/** A stored SSH role: every parameter after the write rules applied (see role.decider). */
export const sshRoleSchema = z.object({
  key_type: z.enum(['otp', 'dynamic', 'ca']),
  key: z.string(),
  admin_user: z.string(),
  default_user: z.string(),
  cidr_list: z.string(),
  exclude_cidr_list: z.string(),
  port: z.number().int(),
  key_bits: z.number().int(),
  install_script: z.string(),
  allowed_users: z.string(),
  allowed_users_template: z.boolean(),
  allowed_domains: z.string(),
  key_option_specs: z.string(),
  /** seconds; 0 = the mount's default */
  ttl: z.number().int(),
  /** seconds; 0 = the mount's maximum */
  max_ttl: z.number().int(),
  allowed_critical_options: z.string(),
  allowed_extensions: z.string(),
  default_critical_options: z.record(z.string(), z.string()),
  default_extensions: z.record(z.string(), z.string()),
  allow_user_certificates: z.boolean(),
  allow_host_certificates: z.boolean(),
  allow_bare_domains: z.boolean(),
  allow_subdomains: z.boolean(),
  allow_user_key_ids: z.boolean(),
  allow_empty_principals: z.boolean(),
  key_id_format: z.string(),
  allowed_user_key_lengths: z.record(z.string(), z.array(z.number().int())),
  /** "" = the signer's default (rsa-sha2-256 for RSA CA keys) */
  algorithm_signer: z.string(),
  not_before_duration: z.number().int(),
});
export type SshRole = z.infer<typeof sshRoleSchema>;
