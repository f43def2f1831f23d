import { createHash, randomBytes } from 'node:crypto';
import type { ApiClient, ApiResponse } from './api';

/**
 * Raw steps of the authorization code flow against a Coffer provider, for the cases a relying
 * party library would refuse to send (bad redirect URIs, replays, PKCE downgrades).
 */
export interface OidcClientCreds {
  clientId: string;
  clientSecret: string;
}

export const pkcePair = (): { verifier: string; challenge: string } => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** POST …/authorize with the end-user's Coffer token (JSON body). */
export function authorize(
  user: ApiClient,
  provider: string,
  params: Record<string, string | undefined>,
): Promise<ApiResponse> {
  const body = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return user.post(`identity/oidc/provider/${provider}/authorize`, body);
}

/** POST …/token, form-encoded, client_secret_basic unless `post` asks for client_secret_post. */
export function exchange(
  anon: ApiClient,
  provider: string,
  creds: OidcClientCreds,
  params: Record<string, string | undefined>,
  post = false,
): Promise<ApiResponse> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, v);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (post) {
    form.set('client_id', creds.clientId);
    form.set('client_secret', creds.clientSecret);
  } else {
    const basic = `${encodeURIComponent(creds.clientId)}:${encodeURIComponent(creds.clientSecret)}`;
    headers['authorization'] = `Basic ${Buffer.from(basic).toString('base64')}`;
  }
  return anon.request('POST', `identity/oidc/provider/${provider}/token`, {
    raw: form.toString(),
    headers,
    anonymous: true,
  });
}

/** GET …/userinfo with a bearer access token. */
export function userinfo(anon: ApiClient, provider: string, accessToken: string): Promise<ApiResponse> {
  return anon.get(`identity/oidc/provider/${provider}/userinfo`, {
    headers: { authorization: `Bearer ${accessToken}` },
    anonymous: true,
  });
}
