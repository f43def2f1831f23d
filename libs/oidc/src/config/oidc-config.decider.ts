import { populateTemplate } from '@coffer/acl';
import type {
  OidcAssignmentBody,
  OidcClientBody,
  OidcKeyBody,
  OidcProviderBody,
  OidcScopeBody,
} from '@coffer/contracts/oidc';
import { generateKeyPair, isSigningAlgorithm, type KeyPairRecord } from '../keys/key-material';
import {
  DAY_SECONDS,
  OPENID_SCOPE,
  type AssignmentState,
  type ClientState,
  type KeyState,
  type ProviderState,
  type ScopeState,
} from './oidc-config.state';

/**
 * The rules of Vault's identity/oidc writes (vault/identity_store_oidc*.go), pure: each answers
 * the resource's new state or the text of a 400. A field absent from the body keeps its value on
 * update and takes Vault's default on create.
 */
export type Decision<S> = { ok: true; state: S; warnings?: string[] } | { ok: false; error: string };

const refuse = <S>(error: string): Decision<S> => ({ ok: false, error });
const dedupe = (values: readonly string[]): string[] => [...new Set(values)];

/** Claims a scope template may not set: the ID token's own. */
export const RESERVED_CLAIMS = [
  'iat',
  'aud',
  'exp',
  'iss',
  'sub',
  'namespace',
  'nonce',
  'auth_time',
  'at_hash',
  'c_hash',
];

export function decideKey(
  existing: KeyState | undefined,
  body: Partial<OidcKeyBody>,
  nowMs: number,
  /** id_token_ttl of the clients using the key (on update) */
  clientIdTokenTtls: readonly number[],
  generate: (alg: KeyState['algorithm']) => KeyPairRecord = generateKeyPair,
  name = '',
): Decision<KeyState> {
  const rotationPeriod = body.rotation_period ?? existing?.rotationPeriod ?? DAY_SECONDS;
  if (rotationPeriod < 60) return refuse('rotation_period must be at least one minute');
  const verificationTtl = body.verification_ttl ?? existing?.verificationTtl ?? DAY_SECONDS;
  if (verificationTtl > 10 * rotationPeriod)
    return refuse('verification_ttl cannot be longer than 10x rotation_period');
  if (existing && clientIdTokenTtls.some((ttl) => ttl > verificationTtl)) {
    return refuse(
      `unable to update key ${JSON.stringify(name)} because it is currently referenced by one or more clients with an id_token_ttl greater than ${verificationTtl} seconds`,
    );
  }
  const algorithm = body.algorithm ?? existing?.algorithm ?? 'RS256';
  if (!isSigningAlgorithm(algorithm)) return refuse(`unknown signing algorithm ${JSON.stringify(algorithm)}`);
  const allowedClientIds = body.allowed_client_ids ?? existing?.allowedClientIds ?? [];
  // the next rotation moves only earlier (Vault: unset, or now + period is sooner)
  const candidate = nowMs + rotationPeriod * 1000;
  const nextRotationMs = existing ? Math.min(existing.nextRotationMs, candidate) : candidate;
  const base = { algorithm, rotationPeriod, verificationTtl, allowedClientIds, nextRotationMs };
  if (existing && existing.algorithm === algorithm) return { ok: true, state: { ...existing, ...base } };
  // a new key, or a new algorithm: new current and next keypairs; the old ones stay verifiable
  const expiresAtMs = nowMs + verificationTtl * 1000;
  const retired = existing
    ? [...existing.retired, { ...existing.current, expiresAtMs }, { ...existing.next, expiresAtMs }]
    : [];
  return { ok: true, state: { ...base, current: generate(algorithm), next: generate(algorithm), retired } };
}

/**
 * A rotation: the current key retires (verifiable for the verification TTL, or the override),
 * the next one signs, a fresh one becomes next; expired retired keys leave the JWKS.
 */
export function rotateKey(
  state: KeyState,
  nowMs: number,
  fresh: KeyPairRecord,
  verificationTtlOverride?: number,
): KeyState {
  const ttl = verificationTtlOverride ?? state.verificationTtl;
  const retired = [...state.retired, { ...state.current, expiresAtMs: nowMs + ttl * 1000 }].filter(
    (key) => key.expiresAtMs > nowMs,
  );
  return {
    ...state,
    current: state.next,
    next: fresh,
    retired,
    nextRotationMs: nowMs + state.rotationPeriod * 1000,
  };
}

/** Vault: an explicit issuer is scheme://host[:port] and nothing more. */
export function validIssuer(issuer: string): boolean {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.host === '' || url.username !== '' || url.password !== '') return false;
  return issuer === `${url.protocol}//${url.host}` || issuer === `${url.protocol}//${url.host.toLowerCase()}`;
}

export const ISSUER_WARNING =
  'If "issuer" is set explicitly, all tokens must be validated against that address, including those issued by secondary clusters. Setting issuer to "" will restore the default behavior of using the cluster\'s api_addr as the issuer.';

export function decideProvider(
  existing: ProviderState | undefined,
  body: Partial<OidcProviderBody>,
  /** the templates of the scopes the provider lists, undefined for a scope that does not exist */
  scopeTemplates: (name: string) => string | undefined,
): Decision<ProviderState> {
  const state: ProviderState = {
    issuer: body.issuer ?? existing?.issuer ?? '',
    allowedClientIds: dedupe(body.allowed_client_ids ?? existing?.allowedClientIds ?? []),
    scopesSupported: dedupe(body.scopes_supported ?? existing?.scopesSupported ?? []),
  };
  const warnings: string[] = [];
  if (state.issuer !== '') {
    if (!validIssuer(state.issuer)) {
      return refuse(
        'invalid issuer, which must include only a scheme, host, and optional port (e.g. https://example.com:8200)',
      );
    }
    warnings.push(ISSUER_WARNING);
  }
  const claimOwners = new Map<string, string>();
  for (const scope of state.scopesSupported) {
    const template = scopeTemplates(scope);
    if (template === undefined) return refuse(`scope ${JSON.stringify(scope)} does not exist`);
    for (const claim of Object.keys(templateShape(template) ?? {})) {
      const other = claimOwners.get(claim);
      if (other !== undefined && other !== scope) {
        warnings.push(
          `Found scope templates with conflicting top-level keys: conflict ${JSON.stringify(claim)} in scopes ${JSON.stringify(scope)}, ${JSON.stringify(other)}. This may result in an error if the scopes are requested in an OIDC Authentication Request.`,
        );
      }
      claimOwners.set(claim, scope);
    }
  }
  return { ok: true, state, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** A template rendered for an empty entity, as Vault validates it; undefined when it does not render. */
function templateShape(template: string): Record<string, unknown> | undefined {
  if (template === '') return {};
  const rendered = populateTemplate(template, {
    entity: { id: '', name: '', metadata: {}, aliases: [], groups: [] },
    now: new Date(0),
    mode: 'json',
  });
  if (!rendered.ok) return undefined;
  try {
    const parsed: unknown = JSON.parse(rendered.value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A base64 text decodes to the template (Vault tries base64 first, then takes the text as is). */
export function decodeTemplate(template: string): string {
  if (template === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(template) || template.length % 4 !== 0)
    return template;
  return Buffer.from(template, 'base64').toString('utf8');
}

export function decideScope(
  name: string,
  existing: ScopeState | undefined,
  body: Partial<OidcScopeBody>,
): Decision<ScopeState> {
  if (name === OPENID_SCOPE) return refuse(`the ${JSON.stringify(OPENID_SCOPE)} scope name is reserved`);
  const description = body.description ?? existing?.description ?? '';
  const template = decodeTemplate(body.template ?? existing?.template ?? '');
  if (template !== '') {
    const rendered = populateTemplate(template, {
      entity: { id: '', name: '', metadata: {}, aliases: [], groups: [] },
      now: new Date(0),
      mode: 'json',
    });
    if (!rendered.ok) return refuse(`error parsing template: ${rendered.error}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(rendered.value);
    } catch (error) {
      return refuse(`error parsing template JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return refuse('error parsing template JSON: the template is not a JSON object');
    for (const key of Object.keys(parsed)) {
      if (RESERVED_CLAIMS.includes(key)) {
        return refuse(
          `top level key ${JSON.stringify(key)} not allowed. Restricted keys: ${RESERVED_CLAIMS.join(', ')}`,
        );
      }
    }
  }
  return { ok: true, state: { template, description } };
}

export function decideClient(
  existing: ClientState | undefined,
  body: Partial<OidcClientBody>,
  facts: {
    /** the verification TTL of the named key, undefined when it does not exist */
    keyVerificationTtl: (name: string) => number | undefined;
    assignmentExists: (name: string) => boolean;
    generateId: () => string;
    generateSecret: () => string;
  },
): Decision<ClientState> {
  const redirectUris = dedupe(body.redirect_uris ?? existing?.redirectUris ?? []);
  const assignments = dedupe(body.assignments ?? existing?.assignments ?? []);
  for (const assignment of assignments)
    if (!facts.assignmentExists(assignment))
      return refuse(`assignment ${JSON.stringify(assignment)} does not exist`);
  if (existing && body.key !== undefined && body.key !== existing.key)
    return refuse('key modification is not allowed');
  const key = existing?.key ?? body.key ?? '';
  if (key === '') return refuse('the key parameter is required');
  const verificationTtl = facts.keyVerificationTtl(key);
  if (verificationTtl === undefined) return refuse(`key ${JSON.stringify(key)} does not exist`);
  const idTokenTtl = body.id_token_ttl ?? existing?.idTokenTtl ?? DAY_SECONDS;
  if (idTokenTtl > verificationTtl)
    return refuse(
      "a client's id_token_ttl cannot be greater than the verification_ttl of the key it references",
    );
  return {
    ok: true,
    state: {
      key,
      redirectUris,
      assignments,
      idTokenTtl,
      accessTokenTtl: body.access_token_ttl ?? existing?.accessTokenTtl ?? DAY_SECONDS,
      clientId: existing?.clientId ?? facts.generateId(),
      clientSecret: existing?.clientSecret ?? facts.generateSecret(),
    },
  };
}

/** Vault lowercases the UUID part of identity ids (not a namespace suffix after "."). */
export function lowercaseIdentityIds(ids: readonly string[]): string[] {
  return ids.map((id) => {
    const dot = id.indexOf('.');
    return dot < 0 ? id.toLowerCase() : `${id.slice(0, dot).toLowerCase()}${id.slice(dot)}`;
  });
}

export function decideAssignment(
  existing: AssignmentState | undefined,
  body: Partial<OidcAssignmentBody>,
): Decision<AssignmentState> {
  return {
    ok: true,
    state: {
      entityIds: dedupe(lowercaseIdentityIds(body.entity_ids ?? existing?.entityIds ?? [])),
      groupIds: dedupe(lowercaseIdentityIds(body.group_ids ?? existing?.groupIds ?? [])),
    },
  };
}
