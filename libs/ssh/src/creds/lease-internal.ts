import { z } from 'zod';

/** What a creds lease keeps behind the barrier in core-sys to revoke it later. */
export const otpLeaseSchema = z.object({ kind: z.literal('otp'), hash: z.string() });
export const dynamicLeaseSchema = z.object({
  kind: z.literal('dynamic'),
  key_name: z.string(),
  admin_user: z.string(),
  username: z.string(),
  ip: z.string(),
  port: z.number().int(),
  install_script: z.string(),
  key_line: z.string(),
});
export const leaseInternalSchema = z.discriminatedUnion('kind', [otpLeaseSchema, dynamicLeaseSchema]);
export type DynamicLease = z.infer<typeof dynamicLeaseSchema>;
