import type { OauthErrorBody } from '@coffer/contracts/oidc';

/**
 * OAuth's answers are raw bodies (no Vault envelope): `{error, error_description}` with the
 * status OAuth gives each error code.
 */
export interface RawAnswer<B> {
  kind: 'raw';
  status: number;
  body: B;
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
