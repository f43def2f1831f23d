import { z } from 'zod';
import { SUPPORTED_ALGORITHMS } from '../keys/key-material';

/**
 * The OIDC provider's configuration resources as stored (events carry whole states). Durations in
 * seconds, times in unix ms. Private keys and client secrets live only here, behind the barrier.
 */

const keyPairSchema = z.object({
  kid: z.string(),
  alg: z.enum(SUPPORTED_ALGORITHMS),
  jwk: z.record(z.string(), z.string()),
});

export const keyStateSchema = z.object({
  algorithm: z.enum(SUPPORTED_ALGORITHMS),
  rotationPeriod: z.number().int(),
  verificationTtl: z.number().int(),
  allowedClientIds: z.array(z.string()),
  nextRotationMs: z.number().int(),
  current: keyPairSchema,
  next: keyPairSchema,
  /** rotated-out public keys, in the JWKS until `expiresAtMs` */
  retired: z.array(
    z.object({
      kid: z.string(),
      alg: z.enum(SUPPORTED_ALGORITHMS),
      jwk: z.record(z.string(), z.string()),
      expiresAtMs: z.number().int(),
    }),
  ),
});
export type KeyState = z.infer<typeof keyStateSchema>;

export const providerStateSchema = z.object({
  issuer: z.string(),
  allowedClientIds: z.array(z.string()),
  scopesSupported: z.array(z.string()),
});
export type ProviderState = z.infer<typeof providerStateSchema>;

export const scopeStateSchema = z.object({ template: z.string(), description: z.string() });
export type ScopeState = z.infer<typeof scopeStateSchema>;

export const clientStateSchema = z.object({
  key: z.string(),
  redirectUris: z.array(z.string()),
  assignments: z.array(z.string()),
  idTokenTtl: z.number().int(),
  accessTokenTtl: z.number().int(),
  clientId: z.string(),
  clientSecret: z.string(),
});
export type ClientState = z.infer<typeof clientStateSchema>;

export const assignmentStateSchema = z.object({
  entityIds: z.array(z.string()),
  groupIds: z.array(z.string()),
});
export type AssignmentState = z.infer<typeof assignmentStateSchema>;

export interface ResourceStates {
  key: KeyState;
  provider: ProviderState;
  scope: ScopeState;
  client: ClientState;
  assignment: AssignmentState;
}
export type ResourceKindName = keyof ResourceStates;

/** Vault's built-in resources: they exist in every namespace without being written. */
export const DEFAULT_KEY_NAME = 'default';
export const DEFAULT_PROVIDER_NAME = 'default';
export const ALLOW_ALL_ASSIGNMENT = 'allow_all';
export const OPENID_SCOPE = 'openid';
export const DAY_SECONDS = 86_400;

export const defaultProvider = (): ProviderState => ({
  issuer: '',
  allowedClientIds: ['*'],
  scopesSupported: [],
});
export const allowAllAssignment = (): AssignmentState => ({ entityIds: ['*'], groupIds: ['*'] });
