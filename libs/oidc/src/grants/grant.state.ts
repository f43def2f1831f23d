import { z } from 'zod';

/** What an authorization code grants, bound at the authorize endpoint (kept sealed, keyed by the code's hash). */
export const codeGrantSchema = z.object({
  namespace: z.string(),
  provider: z.string(),
  clientId: z.string(),
  entityId: z.string(),
  redirectUri: z.string(),
  nonce: z.string(),
  /** requested scopes the provider supports (openid excluded) */
  scopes: z.array(z.string()),
  /** PKCE: empty when the request carried no challenge */
  codeChallenge: z.string(),
  codeChallengeMethod: z.enum(['', 'plain', 'S256']),
  /** creation time of the Coffer token that authorized (auth_time), unix ms */
  authTimeMs: z.number().int().nullable(),
  /** the authorizing Coffer token's ref: revoking that token revokes what the code gave */
  tokenRef: z.string(),
  expiresAtMs: z.number().int(),
});
export type CodeGrant = z.infer<typeof codeGrantSchema>;

/** What an access token grants (userinfo): kept sealed, keyed by the token's hash. */
export type AccessGrant = Pick<
  CodeGrant,
  'namespace' | 'provider' | 'clientId' | 'entityId' | 'scopes' | 'tokenRef'
>;

/** Authorization codes live about five minutes (Vault's auth code cache). */
export const CODE_TTL_MS = 5 * 60 * 1000;
