import {
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  TARGETS,
  type ApiClient,
  type TargetKind,
} from './support';

jest.setTimeout(60_000);

/**
 * Managed mode (`managed_namespace_root = "admin"`; dev env COFFER_DEV_MANAGED=1): the client's
 * token belongs to the `admin` namespace; a request naming no namespace reaches the root
 * namespace and is refused; the administrative routes work from `admin`, not from its children.
 * In dev mode the namespace and its token come with the server; a cluster's operator makes them
 * once with the root token of the root namespace, as HCP does before handing the cluster over.
 */
async function startManaged(kind: TargetKind): Promise<{ admin: ApiClient; stop: () => Promise<void> }> {
  if (kind === 'dev') {
    const dev = await startDevServer({ COFFER_DEV_MANAGED: '1' });
    return {
      admin: dev.client,
      stop: async () => {
        await dev.stop();
      },
    };
  }
  const cluster = await startCluster({
    label: 'managed',
    managedNamespaceRoot: 'admin',
    mountSecret: false,
    readyTimeoutMs: 240_000,
  });
  const operator = cluster.client;
  expect((await operator.post('sys/namespaces/admin', {})).status).toBe(200);
  const created = await operator.post('admin/auth/token/create', { policies: ['root'] });
  expect(created.status).toBe(200);
  return { admin: operator.withToken(created.body.auth.client_token), stop: () => cluster.stop() };
}

describe.each(TARGETS)('%s: managed mode', (kind) => {
  let admin: ApiClient;
  let stop: (() => Promise<void>) | undefined;
  const inAdmin = { headers: { 'X-Vault-Namespace': 'admin' } };

  beforeAll(async () => {
    ({ admin, stop } = await startManaged(kind));
  }, START_TIMEOUT_MS);
  afterAll(() => stop?.());

  it('the token works in admin (header or path prefix), not in the root namespace', async () => {
    expect((await admin.get('sys/mounts')).status).toBe(403);
    expect((await admin.get('auth/token/lookup-self')).status).toBe(403);
    const self = await admin.get('auth/token/lookup-self', inAdmin);
    expect(self.status).toBe(200);
    expect((await admin.get('admin/sys/mounts')).status).toBe(200);
  });

  it('creates namespaces under admin', async () => {
    const created = await admin.post('sys/namespaces/team', {}, inAdmin);
    expect(created.status).toBe(200);
    expect(created.body.data.path).toBe('admin/team/');
    expect((await admin.list('admin/sys/namespaces')).body.data.keys).toEqual(['team/']);
    expect(
      (await admin.post('admin/team/sys/mounts/kv', { type: 'kv', options: { version: '2' } })).status,
    ).toBe(204);
    expect((await admin.put('admin/team/kv/data/x', { data: { a: 'b' } })).status).toBe(200);
  });

  it('serves restricted routes in admin, not in its children', async () => {
    expect((await admin.get('sys/plugins/catalog', inAdmin)).status).toBe(200);
    expect((await admin.get('sys/key-status', inAdmin)).status).toBe(200);
    await admin.post('sys/namespaces/child', {}, inAdmin);
    expect((await admin.get('admin/child/sys/plugins/catalog')).status).toBe(404);
    expect((await admin.get('admin/child/sys/key-status')).status).toBe(404);
  });
});
