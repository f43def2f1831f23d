import type { OauthErrorBody } from '@coffer/contracts/oidc';

/**
 * OAuth's answers are raw bodies (no Vault envelope): `{error, error_description}` with the
 * status OAuth gives each error code.
 */
export interface RawAnswer<B> {
  kind: 'raw';
  status: number;
  body: B;
  headers?: Record<string, string>;
}

export const rawOk = <B>(body: B): RawAnswer<B> => ({ kind: 'raw', status: 200, body });

export function oauthError(
  status: number,
  error: string,
  description: string,
  state?: string,
): RawAnswer<OauthErrorBody> {
  const body: OauthErrorBody = { error, error_description: description };
  if (state !== undefined) body.state = state;
  return { kind: 'raw', status, body };
}

/** Thrown inside a flow to answer an OAuth error at once (caught by the flow's entry point). */
export class OauthFailure extends Error {
  constructor(readonly answer: RawAnswer<OauthErrorBody>) {
    super(answer.body.error);
  }
}

/** Answers an OAuth error at once from anywhere in a flow (see `oauthFlow`). */
export function oauthFail(status: number, error: string, description: string, state?: string): never {
  throw new OauthFailure(oauthError(status, error, description, state));
}

/** Runs a flow, answering the OAuth error it failed with, if any (other errors go on). */
export async function oauthFlow<B>(run: () => Promise<RawAnswer<B>>): Promise<RawAnswer<B | OauthErrorBody>> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OauthFailure) return error.answer;
    throw error;
  }
}

const isError = (body: unknown): body is OauthErrorBody =>
  typeof body === 'object' && body !== null && 'error' in body;

/**
 * The token endpoint's headers (OIDC Core 3.1.3.3: no caching) and, for invalid_client,
 * `WWW-Authenticate: Basic` (RFC 6749 section 5.2), as Vault's tokenResponse.
 */
export function tokenHeaders<B>(answer: RawAnswer<B>): RawAnswer<B> {
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (isError(answer.body) && answer.body.error === 'invalid_client') headers['www-authenticate'] = 'Basic';
  return { ...answer, headers };
}

/** userinfo's `WWW-Authenticate: Bearer error=…` on invalid_request and invalid_token (RFC 6750 section 3). */
export function userinfoHeaders<B>(answer: RawAnswer<B>): RawAnswer<B> {
  const body = answer.body;
  if (!isError(body) || (body.error !== 'invalid_request' && body.error !== 'invalid_token')) return answer;
  const challenge = `Bearer error=${JSON.stringify(body.error)},error_description=${JSON.stringify(body.error_description)}`;
  return { ...answer, headers: { 'www-authenticate': challenge } };
}
