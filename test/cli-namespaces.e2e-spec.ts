import {
  cliRunner,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  type CliRunner,
  type Target,
} from './support';

jest.setTimeout(180_000);

/**
 * `coffer namespace create|list|lookup|delete` and the global -namespace flag (X-Service-Namespace),
 * against the sys/namespaces API.
 */
describe.each(TARGETS)('%s: coffer namespaces', (kind) => {
  let target: Target;
  let cli: CliRunner;
  let asRoot: { env: Record<string, string> };

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'cli-ns' });
    cli = cliRunner(target.baseUrl);
    asRoot = { env: { COFFER_TOKEN: target.rootToken } };
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    cli?.cleanup();
  });

  it('creates, lists, looks up and deletes namespaces, nested with -namespace', async () => {
    const ns = uniq('team');
    const created = await cli.json(['namespace', 'create', '-custom-metadata=owner=ops', ns], asRoot);
    expect(created.data).toMatchObject({ path: `${ns}/`, custom_metadata: { owner: 'ops' } });
    expect(await cli.ok(['namespace', 'lookup', ns], asRoot)).toMatch(new RegExp(`^path\\s+${ns}/$`, 'm'));
    expect(await cli.json(['namespace', 'list'], asRoot)).toContain(`${ns}/`);
    expect(await cli.ok(['namespace', 'list'], asRoot)).toMatch(
      new RegExp(`^Keys\\n----\\n(.*\\n)*${ns}/$`, 'm'),
    );

    const child = await cli.json(['namespace', 'create', `-namespace=${ns}`, 'child'], asRoot);
    expect(child.data.path).toBe(`${ns}/child/`);
    expect(await cli.json(['namespace', 'list', `-namespace=${ns}`], asRoot)).toEqual(['child/']);
    expect((await cli.json(['namespace', 'lookup', `${ns}/child`], asRoot)).data.path).toBe(`${ns}/child/`);

    expect(await cli.ok(['namespace', 'delete', `-namespace=${ns}`, 'child'], asRoot)).toContain(
      'Success! Namespace deleted at: child/',
    );
    expect(await cli.ok(['namespace', 'delete', ns], asRoot)).toContain(
      `Success! Namespace deleted at: ${ns}/`,
    );
    expect((await cli.run(['namespace', 'lookup', ns], asRoot)).code).toBe(2);
  });

  it('-namespace (and COFFER_NAMESPACE) scope every command: mounts, kv, policies, tokens', async () => {
    const ns = uniq('tenant');
    await cli.ok(['namespace', 'create', ns], asRoot);
    const inNs = { env: { ...asRoot.env, COFFER_NAMESPACE: ns } };
    await cli.ok(['secrets', 'enable', '-path=kv', '-version=2', 'kv'], inNs);
    await cli.ok(['kv', 'put', 'kv/app', 'pw=in-namespace'], inNs);
    expect(await cli.ok(['kv', 'get', '-field=pw', '-namespace', ns, 'kv/app'], asRoot)).toBe('in-namespace');
    // the namespace as a path prefix, through the generic read (kv's mount lookup asks the root namespace)
    expect((await cli.json(['read', `${ns}/kv/data/app`], asRoot)).data.data.pw).toBe('in-namespace');
    expect((await cli.json(['secrets', 'list'], asRoot)).data['kv/']).toBeUndefined();
    expect((await cli.json(['secrets', 'list'], inNs)).data['kv/']).toMatchObject({ type: 'kv' });

    await cli.ok(['policy', 'write', 'reader', '-'], {
      ...inNs,
      input: 'path "kv/data/*" { capabilities = ["read"] }',
    });
    const token = (await cli.ok(['token', 'create', '-policy=reader', '-field=token'], inNs)).trim();
    expect(
      await cli.ok(['kv', 'get', '-field=pw', 'kv/app'], {
        env: { COFFER_TOKEN: token, COFFER_NAMESPACE: ns },
      }),
    ).toBe('in-namespace');
    expect((await cli.run(['kv', 'get', 'kv/app'], { env: { COFFER_TOKEN: token } })).code).toBe(2);
    const curl = await cli.ok(['read', '-output-curl-string', `-namespace=${ns}`, 'sys/mounts'], asRoot);
    expect(curl).toContain(`'X-Service-Namespace: ${ns}'`);
  });

  it('secrets move crosses namespaces (from a child, back to the root) with the data', async () => {
    const ns = uniq('org');
    await cli.ok(['namespace', 'create', ns], asRoot);
    await cli.ok(['namespace', 'create', `-namespace=${ns}`, 'team'], asRoot);
    const inNs = { env: { ...asRoot.env, COFFER_NAMESPACE: ns } };
    await cli.ok(['secrets', 'enable', '-path=src', '-version=2', 'kv'], inNs);
    await cli.ok(['kv', 'put', 'src/app', 'pw=moves-along'], inNs);

    // relative to the caller's namespace: team/dst is the mount dst/ of the namespace <ns>/team/
    const moved = await cli.json(['secrets', 'move', 'src', 'team/dst'], inNs);
    expect(moved.data.migration_info).toEqual({
      source_mount: `${ns}/src/`,
      target_mount: `${ns}/team/dst/`,
      status: 'success',
    });
    expect(await cli.ok(['kv', 'get', '-field=pw', `-namespace=${ns}/team`, 'dst/app'], asRoot)).toBe(
      'moves-along',
    );
    expect((await cli.json(['secrets', 'list'], inNs)).data['src/']).toBeUndefined();

    const home = uniq('home');
    expect(await cli.ok(['secrets', 'move', `${ns}/team/dst`, home], asRoot)).toContain(
      `Success! Finished moving secrets engine ${ns}/team/dst/ to ${home}/`,
    );
    expect(await cli.ok(['kv', 'get', '-field=pw', `${home}/app`], asRoot)).toBe('moves-along');
  });
});
