import type { z } from 'zod';
import {
  engineContract,
  existenceContract,
  type AnyEngineContract,
  type RouteDef,
  type RouteTable,
} from '../routes';
import {
  oidcAssignmentBody,
  oidcAssignmentData,
  oidcAuthorizeBody,
  oidcAuthorizeFields,
  oidcClientBody,
  oidcClientData,
  oidcDiscoveryBody,
  oidcKeyBody,
  oidcKeyData,
  oidcKeyRotateBody,
  oidcKeysBody,
  oidcListData,
  oidcNameParams,
  oidcNoData,
  oidcProviderBody,
  oidcProviderData,
  oidcScopeBody,
  oidcScopeData,
  oidcTokenBody,
  oidcTokenResponseBody,
  oidcUserinfoBody,
} from './oidc-fields.schema';

/** The four CRUD contracts (and existence check) of one kind of OIDC resource. */
function resourceContracts<const K extends string, B extends z.ZodType, D extends z.ZodType>(
  kind: K,
  body: B,
  data: D,
) {
  return {
    write: engineContract(`oidc.${kind}.write`, { params: oidcNameParams, body, data: oidcNoData }),
    read: engineContract(`oidc.${kind}.read`, { params: oidcNameParams, data }),
    list: engineContract(`oidc.${kind}.list`, { data: oidcListData }),
    delete: engineContract(`oidc.${kind}.delete`, { params: oidcNameParams, data: oidcNoData }),
    exists: existenceContract(`oidc.${kind}.exists`),
  };
}

const key = resourceContracts('key', oidcKeyBody, oidcKeyData);
const provider = resourceContracts('provider', oidcProviderBody, oidcProviderData);
const scope = resourceContracts('scope', oidcScopeBody, oidcScopeData);
const client = resourceContracts('client', oidcClientBody, oidcClientData);
const assignment = resourceContracts('assignment', oidcAssignmentBody, oidcAssignmentData);

export const oidcContracts = {
  keyWrite: key.write,
  keyRead: key.read,
  keyList: key.list,
  keyDelete: key.delete,
  keyExists: key.exists,
  keyRotate: engineContract('oidc.key.rotate', {
    params: oidcNameParams,
    body: oidcKeyRotateBody,
    data: oidcNoData,
  }),
  providerWrite: provider.write,
  providerRead: provider.read,
  providerList: provider.list,
  providerDelete: provider.delete,
  providerExists: provider.exists,
  scopeWrite: scope.write,
  scopeRead: scope.read,
  scopeList: scope.list,
  scopeDelete: scope.delete,
  scopeExists: scope.exists,
  clientWrite: client.write,
  clientRead: client.read,
  clientList: client.list,
  clientDelete: client.delete,
  clientExists: client.exists,
  assignmentWrite: assignment.write,
  assignmentRead: assignment.read,
  assignmentList: assignment.list,
  assignmentDelete: assignment.delete,
  assignmentExists: assignment.exists,
  discovery: engineContract('oidc.provider.discovery', { params: oidcNameParams, raw: oidcDiscoveryBody }),
  keys: engineContract('oidc.provider.keys', { params: oidcNameParams, raw: oidcKeysBody }),
  authorizeGet: engineContract('oidc.provider.authorize-get', {
    params: oidcNameParams,
    query: oidcAuthorizeFields,
    raw: oidcAuthorizeBody,
  }),
  authorizePost: engineContract('oidc.provider.authorize-post', {
    params: oidcNameParams,
    body: oidcAuthorizeFields,
    raw: oidcAuthorizeBody,
  }),
  token: engineContract('oidc.provider.token', {
    params: oidcNameParams,
    body: oidcTokenBody,
    raw: oidcTokenResponseBody,
  }),
  userinfo: engineContract('oidc.provider.userinfo', { params: oidcNameParams, raw: oidcUserinfoBody }),
};

/** CRUD routes of one resource kind: `oidc/<kind>` (LIST) and `oidc/<kind>/:name`. */
function crudRoutes(
  kind: string,
  what: string,
  contracts: {
    write: AnyEngineContract;
    read: AnyEngineContract;
    list: AnyEngineContract;
    delete: AnyEngineContract;
    exists: ReturnType<typeof existenceContract>;
  },
): RouteDef[] {
  return [
    {
      pattern: `oidc/${kind}`,
      synopsis: `List OIDC ${what}s.`,
      operations: { list: { contract: contracts.list, summary: `List ${what}s` } },
    },
    {
      pattern: `oidc/${kind}/:name`,
      synopsis: `Create, read, update or delete an OIDC ${what}.`,
      existenceCheck: contracts.exists,
      replicated: true,
      operations: {
        create: { contract: contracts.write, summary: `Create a ${what}` },
        update: { contract: contracts.write, summary: `Update a ${what}` },
        read: { contract: contracts.read, summary: `Read a ${what}` },
        delete: { contract: contracts.delete, summary: `Delete a ${what}` },
      },
    },
  ];
}

const c = oidcContracts;

/**
 * The OpenID Connect provider under the builtin identity/ mount, served by the oidc service (a
 * route extension of core-sys's identity table). Discovery, keys, token and userinfo need no
 * Coffer token; authorize uses the caller's. On a performance secondary the configuration writes
 * (`replicated`) run on the primary; authorize, token and userinfo are the secondary's own.
 */
export const oidcRoutes: RouteTable = {
  engine: 'identity',
  service: 'oidc',
  help: [
    'The OpenID Connect provider: named signing keys, providers, scopes (claim templates), clients',
    'and assignments; applications sign identity entities in with the authorization code flow.',
  ].join('\n'),
  routes: [
    ...crudRoutes('key', 'named key', key),
    {
      pattern: 'oidc/key/:name/rotate',
      synopsis: 'Rotate a named key now.',
      replicated: true,
      operations: { update: { contract: c.keyRotate, summary: 'Rotate the key' } },
    },
    ...crudRoutes('provider', 'provider', provider),
    ...crudRoutes('scope', 'scope', scope),
    ...crudRoutes('client', 'client', client),
    ...crudRoutes('assignment', 'assignment', assignment),
    {
      pattern: 'oidc/provider/:name/.well-known/openid-configuration',
      synopsis: 'The OpenID discovery document of a provider.',
      unauthenticated: true,
      operations: { read: { contract: c.discovery, summary: 'Read the discovery document' } },
    },
    {
      pattern: 'oidc/provider/:name/.well-known/keys',
      synopsis: 'The public keys (JWKS) verifying the ID tokens of a provider.',
      unauthenticated: true,
      operations: { read: { contract: c.keys, summary: 'Read the JWKS' } },
    },
    {
      pattern: 'oidc/provider/:name/authorize',
      synopsis: 'The authorization endpoint: a code for the calling token entity.',
      formBody: true,
      operations: {
        read: { contract: c.authorizeGet, summary: 'Authorize (query parameters)' },
        update: { contract: c.authorizePost, summary: 'Authorize (body parameters)' },
      },
    },
    {
      pattern: 'oidc/provider/:name/token',
      synopsis: 'The token endpoint: exchanges a code for an ID token and an access token.',
      unauthenticated: true,
      formBody: true,
      headers: ['authorization'],
      operations: { update: { contract: c.token, summary: 'Exchange a code' } },
    },
    {
      pattern: 'oidc/provider/:name/userinfo',
      synopsis: 'The userinfo endpoint: claims of the entity an access token was issued for.',
      unauthenticated: true,
      formBody: true,
      headers: ['authorization'],
      operations: {
        read: { contract: c.userinfo, summary: 'Read the claims' },
        update: { contract: c.userinfo, summary: 'Read the claims' },
      },
    },
  ],
};
