import type { ApiClient, ApiResponse } from './api';
import { uniq } from './helpers';
import { authorize, exchange, pkcePair, type OidcClientCreds } from './oidc-flow';
import type { Target } from './targets';

/**
 * The OIDC provider set up for the e2e specs: a userpass user (alice, her entity with metadata)
 * and an outsider (mallory), an ES256 key, scopes, two clients (`app` for alice's assignment,
 * `other` for allow_all) and a provider allowing both.
 */
export interface OidcFixture {
  target: Target;
  root: ApiClient;
  /** alice, with her Coffer token */
  user: ApiClient;
  userToken: string;
  entityId: string;
  /** the names of alice's groups: one she is a member of, and its parent */
  groupNames: string[];
  /** mallory: an entity outside the `people` assignment */
  outsider: ApiClient;
  app: OidcClientCreds;
  other: OidcClientCreds;
  provider: string;
  issuerOf(name: string): string;
  clientCreds(name: string): Promise<OidcClientCreds>;
  /** authorize (S256 PKCE) as alice, then exchange the code: the token response */
  codeFlow(
    creds: OidcClientCreds,
    name?: string,
    scope?: string,
  ): Promise<{ code: string; verifier: string; res: ApiResponse }>;
}

export const OIDC_REDIRECT = 'https://app.example.com/callback';

/** Fails with the answer's body when the status is not the expected one. */
export async function expectStatus(res: Promise<ApiResponse>, status = 204): Promise<void> {
  const { body, status: got } = await res;
  expect({ status: got, body: got === status ? undefined : body }).toEqual({ status, body: undefined });
}

export async function setUpOidc(target: Target): Promise<OidcFixture> {
  const root = target.root;
  const ok = expectStatus;
  const mount = uniq('up');
  await ok(root.post(`sys/auth/${mount}`, { type: 'userpass' }));
  await ok(root.post(`auth/${mount}/users/alice`, { password: 'alice-pw' }));
  await ok(root.post(`auth/${mount}/users/mallory`, { password: 'mallory-pw' }));
  const alice = await target.anon.post(`auth/${mount}/login/alice`, { password: 'alice-pw' });
  const entityId: string = alice.body.auth.entity_id;
  const userToken: string = alice.body.auth.client_token;
  const user = target.anon.withToken(userToken);
  const mallory = await target.anon.post(`auth/${mount}/login/mallory`, { password: 'mallory-pw' });
  const metadata = { email: 'alice@example.com', phone: '555-0100' };
  await ok(root.post(`identity/entity/id/${entityId}`, { metadata }));
  // alice is in `engineers` directly and in `staff` through it (a nested group)
  const engineers = await root.post('identity/group', {
    name: uniq('engineers'),
    member_entity_ids: [entityId],
  });
  expect(engineers.status).toBe(200);
  const staff = await root.post('identity/group', {
    name: uniq('staff'),
    member_group_ids: [engineers.body.data.id],
  });
  expect(staff.status).toBe(200);
  const groupNames: string[] = [engineers.body.data.name, staff.body.data.name];

  await ok(root.post('identity/oidc/key/signer', { algorithm: 'ES256', allowed_client_ids: '*' }));
  await ok(root.post('identity/oidc/assignment/people', { entity_ids: [entityId] }));
  const profile = '{"username": {{identity.entity.name}}, "meta": {{identity.entity.metadata}}}';
  await ok(root.post('identity/oidc/scope/profile', { template: profile }));
  const groups = Buffer.from('{"groups": {{identity.entity.groups.names}}}').toString('base64');
  await ok(root.post('identity/oidc/scope/groups', { template: groups }));
  // as in Vault's docs: "}}}" would be unbalanced templating characters
  const contact =
    '{"contact": {"email": {{identity.entity.metadata.email}}, "phone_number": {{identity.entity.metadata.phone}} } }';
  await ok(root.post('identity/oidc/scope/contact', { template: contact }));
  const client = {
    key: 'signer',
    redirect_uris: [OIDC_REDIRECT],
    assignments: 'people',
    id_token_ttl: '30m',
  };
  await ok(root.post('identity/oidc/client/app', client));
  await ok(root.post('identity/oidc/client/other', { ...client, assignments: 'allow_all' }));
  const clientCreds = async (name: string): Promise<OidcClientCreds> => {
    const read = await root.get(`identity/oidc/client/${name}`);
    expect(read.status).toBe(200);
    return { clientId: read.body.data.client_id, clientSecret: read.body.data.client_secret };
  };
  const app = await clientCreds('app');
  const other = await clientCreds('other');
  const provider = uniq('prov');
  await ok(
    root.post(`identity/oidc/provider/${provider}`, {
      allowed_client_ids: [app.clientId, other.clientId],
      scopes_supported: 'profile,groups,contact',
    }),
  );
  return {
    target,
    root,
    user,
    userToken,
    entityId,
    groupNames,
    outsider: target.anon.withToken(mallory.body.auth.client_token),
    app,
    other,
    provider,
    issuerOf: (name) => `${target.baseUrl}/v1/identity/oidc/provider/${name}`,
    clientCreds,
    codeFlow: async (creds, name = provider, scope = 'openid profile') => {
      const { verifier, challenge } = pkcePair();
      const auth = await authorize(user, name, {
        client_id: creds.clientId,
        redirect_uri: OIDC_REDIRECT,
        response_type: 'code',
        scope,
        state: 's1',
        nonce: 'n1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect(auth.status).toBe(200);
      const code: string = auth.body.code;
      const res = await exchange(target.anon, name, creds, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: OIDC_REDIRECT,
        code_verifier: verifier,
      });
      return { code, verifier, res };
    },
  };
}
