import { ENGINES } from '@coffer/engines';
import { waitFor } from '@coffer/testing';

/**
 * Initialising and unsealing a cluster over its HTTP API, as an operator would: used by
 * `npm run cluster -- --init`, the end-to-end harness and the bench.
 */
export interface HttpJsonResult {
  status: number;
  body: unknown;
}

export async function httpJson(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<HttpJsonResult> {
  const headers: Record<string, string> = {};
  if (opts.token !== undefined) headers['x-service-token'] = opts.token;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let body: unknown = text;
  if (text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = text;
    }
  }
  return { status: res.status, body };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function expectOk(what: string, res: HttpJsonResult): Record<string, unknown> {
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return isRecord(res.body) ? res.body : {};
}

export interface ClusterInitResult {
  keys: string[];
  keysBase64: string[];
  rootToken: string;
}

export interface SealStatus {
  initialized: boolean;
  sealed: boolean;
}

export async function sealStatus(baseUrl: string): Promise<SealStatus> {
  const body = expectOk('seal-status', await httpJson('GET', `${baseUrl}/v1/sys/seal-status`));
  return { initialized: body['initialized'] === true, sealed: body['sealed'] !== false };
}

export async function initialize(
  baseUrl: string,
  shares: number,
  threshold: number,
): Promise<ClusterInitResult> {
  const body = expectOk(
    'sys/init',
    await httpJson('PUT', `${baseUrl}/v1/sys/init`, {
      body: { secret_shares: shares, secret_threshold: threshold },
    }),
  );
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const rootToken = body['root_token'];
  if (typeof rootToken !== 'string') throw new Error('sys/init: no root_token in the response');
  return { keys: strings(body['keys']), keysBase64: strings(body['keys_base64']), rootToken };
}

/** Submits shares until the cluster reports unsealed. */
export async function unseal(baseUrl: string, keys: string[]): Promise<void> {
  for (const key of keys) {
    const body = expectOk('sys/unseal', await httpJson('PUT', `${baseUrl}/v1/sys/unseal`, { body: { key } }));
    if (body['sealed'] === false) return;
  }
  throw new Error('sys/unseal: still sealed after every key was submitted');
}

/**
 * Engine replicas fetch the barrier keyring on the unseal broadcast. Each engine of `ENGINES`
 * names a readiness path that answers 200 or 404 from a replica that serves and 503 from one
 * still sealed; replicas of a queue group are picked at random, so `consecutive` rounds in a row
 * in which every engine answered mean every replica is ready with overwhelming probability.
 */
export async function waitForEngines(baseUrl: string, rootToken: string, consecutive = 24): Promise<void> {
  let streak = 0;
  await waitFor(
    async () => {
      const answers = await Promise.all(
        ENGINES.map((engine) =>
          httpJson('GET', `${baseUrl}/v1/${engine.readinessPath}`, { token: rootToken }),
        ),
      );
      const ready = answers.every((res) => res.status === 404 || res.status === 200);
      streak = ready ? streak + 1 : 0;
      return streak >= consecutive;
    },
    { timeoutMs: 30_000, intervalMs: 10, message: 'waiting for engine replicas to hold the barrier keyring' },
  );
}

/** Mounts a kv version 2 engine at `path` unless something is mounted there already. */
export async function ensureKvV2(baseUrl: string, rootToken: string, path = 'secret'): Promise<void> {
  const mounts = expectOk(
    'sys/mounts',
    await httpJson('GET', `${baseUrl}/v1/sys/mounts`, { token: rootToken }),
  );
  const data = isRecord(mounts['data']) ? mounts['data'] : mounts;
  if (`${path}/` in data) return;
  expectOk(
    `enable ${path}/`,
    await httpJson('POST', `${baseUrl}/v1/sys/mounts/${path}`, {
      token: rootToken,
      body: { type: 'kv', options: { version: '2' }, description: 'key/value secret storage' },
    }),
  );
}
