import { z } from 'zod';

/** What a cloud-b lease keeps behind the barrier in core-sys, to renew or revoke it. */
export const cloudBLeaseSchema = z.object({
  /** the IAM user (iam_user), or the session / federated user name (STS) */
  username: z.string(),
  /** STS credentials expire by themselves and are not renewable */
  is_sts: z.boolean(),
  role: z.string().optional(),
});
export type CloudBLease = z.infer<typeof cloudBLeaseSchema>;
