import { readFile, readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { invalidRequest } from '@coffer/contracts';
import { activationSchema, type Activation } from '@coffer/contracts/replication';
import { decodeJwt } from 'jose';

export interface ActivationRequest {
  token: string;
  /** overrides the address the token names */
  primaryApiAddr: string;
  caFile: string;
  caPath: string;
}

const UNWRAP_TIMEOUT_MS = 15_000;

/** The primary's API address embedded in an activation token (a wrapping JWT's `addr`). */
export function activationAddress(token: string): string {
  try {
    const claims = decodeJwt(token);
    return typeof claims['addr'] === 'string' ? claims['addr'] : '';
  } catch {
    throw invalidRequest('invalid activation token: it is not a replication activation token');
  }
}

async function caBundle(caFile: string, caPath: string): Promise<string[] | undefined> {
  if (caFile === '' && caPath === '') return undefined; // the system roots
  const pems: string[] = [];
  try {
    if (caFile !== '') pems.push(await readFile(caFile, 'utf8'));
    if (caPath !== '') {
      for (const name of (await readdir(caPath)).sort())
        if (/\.(pem|crt)$/.test(name)) pems.push(await readFile(join(caPath, name), 'utf8'));
    }
  } catch {
    throw invalidRequest('error reading the CA certificates given by ca_file / ca_path');
  }
  return pems;
}

function postJson(
  url: URL,
  token: string,
  ca: string[] | undefined,
): Promise<{ status: number; body: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-vault-token': token },
        timeout: UNWRAP_TIMEOUT_MS,
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end('{}');
  });
}

/**
 * Redeems an activation token at the primary, as Vault's secondaries do: the token is a
 * response-wrapping token (JWT format, naming the primary's API address), unwrapped once through
 * the primary's sys/wrapping/unwrap; the wrapped answer holds the replication set, the primary's
 * cluster address and this secondary's pre-shared key.
 */
export async function redeemActivationToken(req: ActivationRequest): Promise<Activation> {
  if (req.token === '') throw invalidRequest('missing activation token');
  const addr = req.primaryApiAddr !== '' ? req.primaryApiAddr : activationAddress(req.token);
  if (addr === '')
    throw invalidRequest('the activation token names no primary API address: set primary_api_addr');
  let url: URL;
  try {
    url = new URL('/v1/sys/wrapping/unwrap', addr);
  } catch {
    throw invalidRequest(`invalid primary API address "${addr}"`);
  }
  const ca = await caBundle(req.caFile, req.caPath);
  let answer: { status: number; body: string };
  try {
    answer = await postJson(url, req.token, ca);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'unknown error';
    throw invalidRequest(`error unwrapping the activation token at ${addr}: ${why}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    parsed = undefined;
  }
  if (answer.status !== 200) {
    const errors = (parsed as { errors?: unknown } | undefined)?.errors;
    const text = Array.isArray(errors) ? errors.join(', ') : `status ${answer.status}`;
    throw invalidRequest(`error unwrapping the activation token at ${addr}: ${text}`);
  }
  const data = activationSchema.safeParse((parsed as { data?: unknown } | undefined)?.data);
  if (!data.success) throw invalidRequest('the unwrapped token is not a replication activation token');
  return data.data;
}
