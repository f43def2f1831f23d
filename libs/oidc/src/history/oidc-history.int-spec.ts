import { engineHistoryState } from '@coffer/contracts';
import { oidcContracts as c } from '@coffer/contracts/oidc';
import { startOidcHarness, type OidcHarness } from '../test-support/oidc-harness';

jest.setTimeout(60_000);

/** A read's data (null: the live read answered 404), or a LIST's data. */
type Answers = Record<string, unknown>;
interface Step {
  at: string;
  answers: Answers;
}

const KINDS = ['key', 'provider', 'scope', 'client', 'assignment'] as const;
const NAMES: Record<(typeof KINDS)[number], string[]> = {
  key: ['default', 'k1'],
  provider: ['default', 'p1'],
  scope: ['s1'],
  client: ['app'],
  assignment: ['allow_all', 'a1'],
};
const READS = {
  key: c.keyRead,
  provider: c.providerRead,
  scope: c.scopeRead,
  client: c.clientRead,
  assignment: c.assignmentRead,
};
const LISTS = {
  key: c.keyList,
  provider: c.providerList,
  scope: c.scopeList,
  client: c.clientList,
  assignment: c.assignmentList,
};

let h: OidcHarness;
const steps: Step[] = [];
const clientSecrets: string[] = [];

/** The live answers, client secrets taken out (and kept, to check history never answers them). */
const withoutSecret = (data: unknown): unknown => {
  if (!data || typeof data !== 'object') return data;
  const { client_secret: secret, ...rest } = data as Record<string, unknown>;
  if (typeof secret === 'string') clientSecrets.push(secret);
  return rest;
};

async function live(): Promise<Answers> {
  const answers: Answers = {};
  for (const kind of KINDS) {
    const list = ((await h.call(LISTS[kind], {})) as { data: unknown }).data as Record<string, unknown>;
    const info = list['key_info'] as Record<string, unknown> | undefined;
    answers[`oidc/${kind}`] = info
      ? { ...list, key_info: Object.fromEntries(Object.entries(info).map(([k, v]) => [k, withoutSecret(v)])) }
      : list;
    for (const name of NAMES[kind]) {
      answers[`oidc/${kind}/${name}`] = withoutSecret(
        ((await h.call(READS[kind], { params: { name } })) as { data?: unknown }).data ?? null,
      );
    }
  }
  answers['oidc/provider?allowed_client_id=nobody'] = (
    await h.call(c.providerList, { query: { allowed_client_id: 'nobody' } })
  ).data;
  return answers;
}

/** Records the live answers half an hour after the step's writes, then moves the clock to the next step. */
async function record(): Promise<void> {
  const answers = await live();
  steps.push({ at: new Date(h.clock.now.getTime() + 1_800_000).toISOString(), answers });
  h.clock.now = new Date(h.clock.now.getTime() + 3_600_000);
}

async function past(key: string, at: string) {
  const [path = '', query] = key.split('?');
  const [k, v] = (query ?? '').split('=');
  return h.replicas[0]!.client.request(engineHistoryState('oidc'), {
    mount_uuid: h.mount.uuid,
    mount_type: 'identity',
    mount_options: {},
    namespace: '',
    path,
    query: { ...(path.split('/').length === 2 ? { list: 'true' } : {}), ...(k && v ? { [k]: v } : {}) },
    at,
    values: false,
  });
}

beforeAll(async () => {
  h = await startOidcHarness('oidc-history');
  // the service's clock stamps the events (recorded_at): one step an hour
  h.clock.now = new Date('2026-01-01T00:00:00Z');
  await record(); // the defaults only (created by the first request)
  await h.call(c.keyWrite, { params: { name: 'k1' }, body: { algorithm: 'ES256', verification_ttl: '2h' } });
  await h.call(c.assignmentWrite, { params: { name: 'a1' }, body: { entity_ids: 'E-1' } });
  await h.call(c.scopeWrite, { params: { name: 's1' }, body: { template: '{"g":"x"}', description: 'one' } });
  await h.call(c.clientWrite, {
    params: { name: 'app' },
    body: { key: 'k1', assignments: 'a1', redirect_uris: 'https://a/cb', id_token_ttl: '1h' },
  });
  await h.call(c.providerWrite, {
    params: { name: 'p1' },
    body: { scopes_supported: 's1', allowed_client_ids: '*' },
  });
  await record(); // created
  await h.call(c.keyWrite, {
    params: { name: 'k1' },
    body: { rotation_period: '2h', allowed_client_ids: 'x' },
  });
  await h.call(c.keyRotate, { params: { name: 'k1' }, body: {} });
  await h.call(c.scopeWrite, { params: { name: 's1' }, body: { description: 'two' } });
  await h.call(c.clientWrite, { params: { name: 'app' }, body: { id_token_ttl: '30m' } });
  await h.call(c.providerWrite, { params: { name: 'p1' }, body: { issuer: 'https://issuer.test' } });
  await h.call(c.assignmentWrite, { params: { name: 'a1' }, body: { group_ids: 'G-1' } });
  await record(); // updated
  await h.call(c.providerDelete, { params: { name: 'p1' } });
  await h.call(c.scopeDelete, { params: { name: 's1' } });
  await h.call(c.clientDelete, { params: { name: 'app' } });
  await h.call(c.assignmentDelete, { params: { name: 'a1' } });
  await h.call(c.keyDelete, { params: { name: 'k1' } });
  await record(); // deleted
  await h.call(c.keyWrite, { params: { name: 'k1' } });
  await h.call(c.clientWrite, { params: { name: 'app' }, body: { key: 'k1' } });
  await h.call(c.scopeWrite, { params: { name: 's1' }, body: { template: '{"h":"y"}' } });
  await record(); // re-created (a new client id and secret)
});

afterAll(async () => {
  await h?.close();
});

describe('history: state at a time of the OIDC provider objects', () => {
  it('answers at every step what the live reads and LISTs answered then, without client secrets', async () => {
    expect(steps).toHaveLength(5);
    expect(clientSecrets.length).toBeGreaterThan(0);
    for (const [i, step] of steps.entries()) {
      for (const [key, answer] of Object.entries(step.answers)) {
        const then = await past(key, step.at);
        expect({ i, key, then: then.found ? then.state : null }).toEqual({ i, key, then: answer });
        const text = JSON.stringify(then);
        for (const secret of clientSecrets) expect(text).not.toContain(secret);
        expect(text).not.toMatch(/client_secret|"d"|private/);
      }
    }
    // the script went through present and absent states
    expect(steps[2]?.answers['oidc/client/app']).toMatchObject({ id_token_ttl: 1800 });
    expect(steps[3]?.answers['oidc/client/app']).toBeNull();
    expect(steps[0]?.answers['oidc/scope']).toEqual({ keys: [] });
  });

  it('answers nothing before the first event, and refuses other paths', async () => {
    expect(await past('oidc/key/default', '2000-01-01T00:00:00Z')).toEqual({
      found: false,
      wal: 0,
      state: null,
      warnings: [],
    });
    await expect(past('oidc/provider/default/authorize', steps[1]!.at)).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(past('entity/id/x', steps[1]!.at)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
