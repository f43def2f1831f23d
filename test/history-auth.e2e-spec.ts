import { startTarget, START_TIMEOUT_MS, TARGETS, type Target } from './support';
import { historyInstant } from '@coffer/testing';

jest.setTimeout(180_000);

/** The reads and LISTs followed ("list:" for a LIST), as paths from the root namespace. */
const READS = [
  'list:auth/hist-approle/role',
  'auth/hist-approle/role/web',
  'auth/hist-approle/role/web/role-id',
  'list:auth/token/roles',
  'auth/token/roles/hist-web',
  'list:auth/hist-up/users',
  'auth/hist-up/users/alice',
  'list:identity/oidc/key',
  'identity/oidc/key/hist-k',
  'list:identity/oidc/client',
  'identity/oidc/client/hist-app',
  'list:identity/oidc/scope',
  'identity/oidc/scope/hist-s',
  'list:identity/oidc/assignment',
  'identity/oidc/assignment/hist-a',
  'list:identity/oidc/provider',
  'identity/oidc/provider/hist-p',
];

interface Answer {
  status: number;
  data: unknown;
}

/** A client's secret is in its live read, never in its history: taken out of the live answers (and kept). */
function withoutClientSecrets(data: unknown, secrets: string[]): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (k === 'client_secret' && typeof v === 'string') secrets.push(v);
    else out[k] = withoutClientSecrets(v, secrets);
  }
  return out;
}

/**
 * sys/history/state of auth methods' roles and users (core-sys's log) and of the OIDC provider's
 * objects (the oidc service's log) over HTTP, in dev mode and against a cluster: a scripted
 * sequence (create, update, delete, re-create), every past read and LIST compared with what the
 * live API answered at each step, and no secret id, password or client secret in any answer.
 */
describe.each(TARGETS)('%s: history of auth methods and the OIDC provider', (kind) => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'history-auth', readyTimeoutMs: 150_000 });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
  });

  it('answers every step as the live API did, and never a secret', async () => {
    const root = target.root;
    const ok = async (p: Promise<{ status: number }>) => expect([200, 204]).toContain((await p).status);
    const secrets: string[] = [];
    const steps: { at: string; answers: Record<string, Answer> }[] = [];
    const record = async (): Promise<void> => {
      const answers: Record<string, Answer> = {};
      for (const key of READS) {
        const res = key.startsWith('list:') ? await root.list(key.slice(5)) : await root.get(key);
        answers[key] = { status: res.status, data: withoutClientSecrets(res.body?.data ?? null, secrets) };
      }
      steps.push({ at: await historyInstant(), answers });
    };

    await ok(root.post('sys/auth/hist-approle', { type: 'approle' }));
    await ok(root.post('sys/auth/hist-up', { type: 'userpass' }));
    await record(); // nothing yet (the OIDC defaults only)

    await ok(root.post('auth/hist-approle/role/web', { token_policies: 'web', token_ttl: '1h' }));
    const sid = await root.post('auth/hist-approle/role/web/secret-id', {});
    secrets.push(String(sid.body.data.secret_id));
    await ok(root.post('auth/token/roles/hist-web', { allowed_policies: 'web' }));
    await ok(root.post('auth/hist-up/users/alice', { password: 'alice-e2e-pass-1', token_policies: 'a' }));
    await ok(root.post('identity/oidc/key/hist-k', { algorithm: 'ES256', verification_ttl: '2h' }));
    await ok(root.post('identity/oidc/assignment/hist-a', { entity_ids: ['e-1'] }));
    await ok(root.post('identity/oidc/scope/hist-s', { template: '{"g":"x"}' }));
    await ok(
      root.post('identity/oidc/client/hist-app', {
        key: 'hist-k',
        id_token_ttl: '1h',
        assignments: 'hist-a',
      }),
    );
    await ok(root.post('identity/oidc/provider/hist-p', { scopes_supported: 'hist-s' }));
    secrets.push('alice-e2e-pass-1');
    await record(); // created

    await ok(root.post('auth/hist-approle/role/web', { token_ttl: '2h' }));
    await ok(root.post('auth/hist-approle/role/web/role-id', { role_id: 'e2e-role-id' }));
    await ok(root.post('auth/token/roles/hist-web', { allowed_policies: 'web,ops' }));
    await ok(root.post('auth/hist-up/users/alice/password', { password: 'alice-e2e-pass-2' }));
    await ok(root.post('auth/hist-up/users/alice/policies', { token_policies: 'a,b' }));
    await ok(root.post('identity/oidc/key/hist-k', { rotation_period: '2h' }));
    await ok(root.post('identity/oidc/client/hist-app', { id_token_ttl: '30m' }));
    await ok(root.post('identity/oidc/scope/hist-s', { description: 'two' }));
    await ok(root.post('identity/oidc/provider/hist-p', { issuer: 'https://issuer.test' }));
    secrets.push('alice-e2e-pass-2');
    await record(); // updated

    await ok(root.delete('auth/hist-approle/role/web'));
    await ok(root.delete('auth/token/roles/hist-web'));
    await ok(root.delete('auth/hist-up/users/alice'));
    await ok(root.delete('identity/oidc/provider/hist-p'));
    await ok(root.delete('identity/oidc/scope/hist-s'));
    await ok(root.delete('identity/oidc/client/hist-app'));
    await ok(root.delete('identity/oidc/assignment/hist-a'));
    await ok(root.delete('identity/oidc/key/hist-k'));
    await record(); // deleted

    await ok(root.post('auth/hist-approle/role/web', { token_policies: 'again' }));
    await ok(root.post('auth/token/roles/hist-web', { path_suffix: 'again' }));
    await ok(root.post('auth/hist-up/users/alice', { password: 'alice-e2e-pass-3' }));
    await ok(root.post('identity/oidc/key/hist-k', {}));
    await ok(root.post('identity/oidc/client/hist-app', { key: 'hist-k' }));
    secrets.push('alice-e2e-pass-3');
    await record(); // re-created

    expect(steps[1]?.answers['auth/hist-up/users/alice']?.status).toBe(200);
    expect(steps[3]?.answers['auth/hist-up/users/alice']?.status).toBe(404);
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    for (const [i, step] of steps.entries()) {
      for (const [key, live] of Object.entries(step.answers)) {
        const list = key.startsWith('list:');
        const path = list ? key.slice(5) : key;
        const res = list
          ? await root.list(`sys/history/state/${path}`, { query: { at: step.at } })
          : await root.get(`sys/history/state/${path}`, { query: { at: step.at } });
        const then: Answer = { status: res.status, data: res.status === 200 ? res.body.data.state : null };
        // a live LIST answers only keys (and key_info) under data; its 404 has no data
        expect({ i, key, then }).toEqual({
          i,
          key,
          then: { status: live.status, data: live.status === 200 ? live.data : null },
        });
        const text = JSON.stringify(res.body);
        for (const secret of secrets) expect(text).not.toContain(secret);
        expect(text).not.toMatch(/client_secret|"secret_id"|password|scrypt/);
      }
    }
  });
});
