import { z } from 'zod';
import { fieldDuration, fieldInt, fieldString, fieldStringList } from '../core-sys/core-sys-fields.schema';
import { jsonObjectSchema } from '../fields/json-object';

/**
 * Fields of the OIDC provider's routes (Vault's identity/oidc/*: named keys, providers, scopes,
 * clients, assignments, and the OpenID endpoints). Read with framework.FieldData in Vault, so the
 * core-sys wording of weak-field failures applies.
 */

export const oidcNameParams = z.object({ name: z.string().default('') }).prefault({});

export const oidcKeyBody = z
  .object({
    rotation_period: fieldDuration('How often to generate a new keypair (default 24h)'),
    verification_ttl: fieldDuration('How long a rotated public key stays in the JWKS (default 24h)'),
    algorithm: fieldString('Signing algorithm: RS256 (default), RS384, RS512, ES256, ES384, ES512, EdDSA'),
    allowed_client_ids: fieldStringList('Client ids allowed to use the key; "*" for all, empty for none'),
  })
  .prefault({});
export type OidcKeyBody = z.output<typeof oidcKeyBody>;

export const oidcKeyRotateBody = z
  .object({ verification_ttl: fieldDuration('Overrides the key verification_ttl for this rotation') })
  .prefault({});

export const oidcProviderBody = z
  .object({
    issuer: fieldString('scheme://host[:port] used in the iss claim (default: the API address)'),
    allowed_client_ids: fieldStringList('Client ids allowed to use the provider; "*" for all'),
    scopes_supported: fieldStringList('Scopes the provider offers (besides openid)'),
  })
  .prefault({});
export type OidcProviderBody = z.output<typeof oidcProviderBody>;

export const oidcScopeBody = z
  .object({
    template: fieldString('JSON template of the claims (plain or base64) with {{identity.entity...}}'),
    description: fieldString('What the scope is for'),
  })
  .prefault({});
export type OidcScopeBody = z.output<typeof oidcScopeBody>;

export const oidcClientBody = z
  .object({
    key: fieldString('Named key signing the ID tokens; cannot change after creation'),
    redirect_uris: fieldStringList('Redirect URIs; an authentication request must name one exactly'),
    assignments: fieldStringList('Assignments whose entities and groups may use the client'),
    id_token_ttl: fieldDuration('ID token lifetime (default 24h)'),
    access_token_ttl: fieldDuration('Access token lifetime (default 24h)'),
  })
  .prefault({});
export type OidcClientBody = z.output<typeof oidcClientBody>;

export const oidcAssignmentBody = z
  .object({
    entity_ids: fieldStringList('Entity ids of the assignment'),
    group_ids: fieldStringList('Group ids of the assignment'),
  })
  .prefault({});
export type OidcAssignmentBody = z.output<typeof oidcAssignmentBody>;

/** The authorization request, from the query (GET) or the body (POST, JSON or form-encoded). */
export const oidcAuthorizeFields = z
  .object({
    scope: fieldString('Space-delimited scopes; must include openid'),
    response_type: fieldString('Must be "code"'),
    client_id: fieldString('The requesting client'),
    redirect_uri: fieldString('One of the client redirect_uris, exactly'),
    state: fieldString('Opaque value returned with the code'),
    nonce: fieldString('Returned in the ID token nonce claim'),
    max_age: fieldInt('Seconds since the token was created beyond which re-authentication is required'),
    prompt: fieldString('"none" is accepted (no interaction happens here); "login" asks for a new login'),
    code_challenge: fieldString('PKCE code challenge'),
    code_challenge_method: fieldString('PKCE method: S256 or plain (default)'),
    request: fieldString('Request objects are not supported'),
    request_uri: fieldString('Request URIs are not supported'),
  })
  .prefault({});
export type OidcAuthorizeFields = z.output<typeof oidcAuthorizeFields>;

export const oidcTokenBody = z
  .object({
    grant_type: fieldString('Must be "authorization_code"'),
    code: fieldString('The authorization code'),
    redirect_uri: fieldString('The redirect_uri of the authorization request'),
    code_verifier: fieldString('PKCE code verifier'),
    client_id: fieldString('client_secret_post: the client id'),
    client_secret: fieldString('client_secret_post: the client secret'),
  })
  .prefault({});
export type OidcTokenBody = z.output<typeof oidcTokenBody>;

export const oidcKeyData = z.object({
  rotation_period: z.number().int(),
  verification_ttl: z.number().int(),
  algorithm: z.string(),
  allowed_client_ids: z.array(z.string()),
});
export const oidcProviderData = z.object({
  issuer: z.string(),
  allowed_client_ids: z.array(z.string()),
  scopes_supported: z.array(z.string()),
});
export const oidcScopeData = z.object({ template: z.string(), description: z.string() });
export const oidcClientData = z.object({
  redirect_uris: z.array(z.string()),
  assignments: z.array(z.string()),
  key: z.string(),
  id_token_ttl: z.number().int(),
  access_token_ttl: z.number().int(),
  client_id: z.string(),
  client_secret: z.string(),
  client_type: z.string(),
});
export const oidcAssignmentData = z.object({
  entity_ids: z.array(z.string()),
  group_ids: z.array(z.string()),
});
export const oidcListData = z.object({
  keys: z.array(z.string()),
  key_info: z.record(z.string(), jsonObjectSchema).optional(),
});
export const oidcNoData = z.object({});

/** OAuth's error body (RFC 6749 section 5.2), used by the authorize, token and userinfo endpoints. */
export const oauthErrorBody = z.object({
  error: z.string(),
  error_description: z.string(),
  state: z.string().optional(),
});
export type OauthErrorBody = z.infer<typeof oauthErrorBody>;

export const oidcDiscoveryBody = z.object({
  issuer: z.string(),
  jwks_uri: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  request_uri_parameter_supported: z.boolean(),
  id_token_signing_alg_values_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
});
export type OidcDiscovery = z.infer<typeof oidcDiscoveryBody>;

/** A public JWK: RSA (n, e), EC (crv, x, y) or OKP (crv, x); never a private member. */
export const publicJwkSchema = z.object({
  use: z.string(),
  kty: z.string(),
  kid: z.string(),
  alg: z.string(),
  n: z.string().optional(),
  e: z.string().optional(),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
});
export type PublicJwk = z.infer<typeof publicJwkSchema>;
export const oidcKeysBody = z.object({ keys: z.array(publicJwkSchema) });

export const oidcAuthorizeBody = z.union([z.object({ code: z.string(), state: z.string() }), oauthErrorBody]);
export const oidcTokenResponseBody = z.union([
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    id_token: z.string(),
  }),
  oauthErrorBody,
]);
/** The userinfo claims: sub and whatever the token's scopes template. */
export const oidcUserinfoBody = jsonObjectSchema;
