import { z } from 'zod';
import { defineContract } from './contract';

/**
 * When the live token behind a token ref was created (unix ms), or null when no live token has
 * that ref. The OIDC provider uses it as the end-user's authentication time (auth_time, max_age),
 * as Vault uses the token's creation time.
 */
export const coreTokenCreatedAt = defineContract(
  'core.token.created-at',
  z.object({ tokenRef: z.string() }),
  z.object({ createdAt: z.number().int().nullable() }),
);
