import { z } from 'zod';

/** What a check-out lease keeps behind the barrier in core-sys, to renew or end it. */
export const checkoutLeaseSchema = z.object({
  set: z.string(),
  account: z.string(),
  checkout_id: z.string(),
});
export type CheckoutLease = z.infer<typeof checkoutLeaseSchema>;
