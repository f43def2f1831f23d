import { httpJson } from '../../test/support/launch/bootstrap';
import type { CofferTarget } from './suite';

/** A set-up write with the root token; a refusal stops the bench with the answer. */
export async function mustWrite(target: CofferTarget, path: string, body: unknown): Promise<unknown> {
  const res = await httpJson('PUT', `${target.baseUrl}/v1/${path}`, { token: target.rootToken, body });
  if (res.status >= 300)
    throw new Error(`bench set-up: PUT ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
