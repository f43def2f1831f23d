import { z } from 'zod';
import { defineContract } from '../contract';
import { jsonObjectSchema } from '../fields/json-object';
import { engineContract, type RouteDef } from '../routes';
import { fieldString } from './core-sys-fields.schema';
import { TOKEN_SELF_HEADERS } from './token.routes';

/**
 * Response wrapping (Vault's sys/wrapping/*). A wrapped response is kept by core-sys behind the
 * barrier, keyed by its single-use wrapping token's accessor; the gateway wraps any answer whose
 * request carried X-Service-Wrap-TTL / X-Vault-Wrap-TTL through `coreWrapResponse`.
 */

/** Vault's wrap_info (wrapped_accessor only when the wrapped response carried an auth block). */
export const wrapInfoSchema = z.object({
  token: z.string(),
  accessor: z.string(),
  ttl: z.number().int(),
  /** RFC 3339 */
  creation_time: z.string(),
  creation_path: z.string(),
  wrapped_accessor: z.string().optional(),
});
export type WrapInfo = z.infer<typeof wrapInfoSchema>;

/** The answer that carries a wrap_info instead of the response: data and auth null. */
export const wrappedEnvelopeRaw = z.object({
  request_id: z.string(),
  lease_id: z.literal(''),
  renewable: z.literal(false),
  lease_duration: z.literal(0),
  data: z.null(),
  wrap_info: wrapInfoSchema,
  warnings: z.null(),
  auth: z.null(),
});
export type WrappedEnvelope = z.infer<typeof wrappedEnvelopeRaw>;

/** Wraps an already rendered HTTP answer (its JSON body) for `ttl` seconds. */
export const coreWrapResponse = defineContract(
  'core.wrapping.wrap-response',
  z.object({
    /** the JSON body the client would have received, request_id included */
    response: jsonObjectSchema,
    /** seconds, > 0 */
    ttl: z.number().positive(),
    /** the request's path (with its namespace), Vault's creation_path */
    creationPath: z.string(),
    /** accessor of the token the wrapped response issued, if any */
    wrappedAccessor: z.string().optional(),
    /** X-Vault-Wrap-Format: jwt makes the wrapping token an ES512-signed JWT (Vault) */
    format: z.literal('jwt').optional(),
  }),
  wrapInfoSchema,
);

const tokenBody = z.object({ token: fieldString('The wrapping token') }).prefault({});

/** Header names (lower case) the wrap route reads: it refuses to answer unwrapped. */
export const WRAP_TTL_HEADER_NAMES = ['x-service-wrap-ttl', 'x-vault-wrap-ttl'] as const;

export const wrappingLookupData = z.object({
  creation_ttl: z.number().int(),
  creation_time: z.string(),
  creation_path: z.string(),
});

export const wrappingContracts = {
  /** answers the body as data; the gateway wraps it (the wrap TTL header is required) */
  wrap: engineContract('core.sys.wrapping.wrap', { body: jsonObjectSchema.prefault({}) }),
  /** answers the stored response exactly, as a raw body */
  unwrap: engineContract('core.sys.wrapping.unwrap', { body: tokenBody, raw: jsonObjectSchema }),
  lookup: engineContract('core.sys.wrapping.lookup', { body: tokenBody, data: wrappingLookupData }),
  rewrap: engineContract('core.sys.wrapping.rewrap', { body: tokenBody, raw: wrappedEnvelopeRaw }),
} as const;

const w = wrappingContracts;

/**
 * unwrap, lookup and rewrap take the wrapping token itself as the client token (or as `token`):
 * the gateway must not resolve it as an ordinary token (that would spend its single use), so
 * these routes are unauthenticated at the gateway and read the forwarded token headers.
 */
export const wrappingRoutes: RouteDef[] = [
  {
    pattern: 'wrapping/wrap',
    synopsis: 'Response-wraps an arbitrary JSON object.',
    description: 'Wraps the request body in a single-use wrapping token; the wrap TTL header is required.',
    headers: [...WRAP_TTL_HEADER_NAMES],
    operations: { update: { contract: w.wrap, summary: 'Wraps the given values.' } },
  },
  {
    pattern: 'wrapping/unwrap',
    synopsis: 'Unwraps a response-wrapped token.',
    description:
      'Answers the original response of a wrapping token exactly once; the token is the client token or the token parameter.',
    unauthenticated: true,
    headers: [...TOKEN_SELF_HEADERS],
    operations: { update: { contract: w.unwrap, summary: 'Unwraps a wrapping token.' } },
  },
  {
    pattern: 'wrapping/lookup',
    synopsis: 'Looks up the properties of a response-wrapped token.',
    description: 'Returns the creation TTL, time and path of a wrapping token without unwrapping it.',
    unauthenticated: true,
    headers: [...TOKEN_SELF_HEADERS],
    operations: {
      read: { contract: w.lookup, summary: 'Looks up a wrapping token.' },
      update: { contract: w.lookup, summary: 'Looks up a wrapping token.' },
    },
  },
  {
    pattern: 'wrapping/rewrap',
    synopsis: 'Rotates a response-wrapped token.',
    description:
      'Moves the wrapped response to a new wrapping token with the same creation TTL and path; the old token is revoked.',
    unauthenticated: true,
    headers: [...TOKEN_SELF_HEADERS],
    operations: { update: { contract: w.rewrap, summary: 'Rewraps a wrapping token.' } },
  },
];
