import {
  historyContracts,
  leaseContracts,
  matchRoute,
  namespaceContracts,
  passwordPolicyContracts,
  sysContracts,
  systemRoutes,
  tableContracts,
} from '@coffer/contracts';

/** The sys/ route table as the gateway sees it: paths relative to the "sys/" mount. */
describe('systemRoutes', () => {
  const match = (path: string) => matchRoute(systemRoutes, path);

  it.each([
    ['init', 'init', {}],
    ['seal-status', 'seal-status', {}],
    ['health', 'health', {}],
    ['mounts', 'mounts', {}],
    ['mounts/secret', 'mounts/:path*', { path: 'secret' }],
    ['mounts/team/a/b', 'mounts/:path*', { path: 'team/a/b' }],
    ['mounts/team/a/tune', 'mounts/:path*/tune', { path: 'team/a' }],
    ['mounts/tune', 'mounts/:path*', { path: 'tune' }],
    ['auth/userpass', 'auth/:path*', { path: 'userpass' }],
    ['auth/userpass/tune', 'auth/:path*/tune', { path: 'userpass' }],
    ['policies/acl', 'policies/acl', {}],
    ['policies/acl/dev', 'policies/acl/:name', { name: 'dev' }],
    ['policy/dev', 'policy/:name', { name: 'dev' }],
    ['internal/ui/mounts/secret/foo', 'internal/ui/mounts/:path*', { path: 'secret/foo' }],
    ['capabilities-self', 'capabilities-self', {}],
  ])('%s matches %s', (path, pattern, params) => {
    expect(match(path)).toMatchObject({ route: { pattern }, params });
  });

  it('leaves unknown paths unmatched', () => {
    expect(match('nope')).toBeUndefined();
    expect(match('policies/acl/a/b')).toBeUndefined();
  });

  it('marks the seal routes unauthenticated and usable while sealed, seal/rotate/auth as sudo', () => {
    for (const p of ['init', 'seal-status', 'unseal', 'health']) {
      expect(match(p)?.route).toMatchObject({ unauthenticated: true, allowSealed: true });
    }
    for (const p of ['seal', 'rotate', 'auth/userpass', 'auth/userpass/tune'])
      expect(match(p)?.route.sudo).toBe(true);
    expect(match('auth')?.route.sudo).toBeUndefined();
    expect(match('mounts/secret')?.route.unauthenticated).toBeUndefined();
  });

  it('declares every sys contract, each subject once', () => {
    const subjects = tableContracts(systemRoutes).map((c) => c.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
    expect(subjects.sort()).toEqual(
      [
        ...Object.values(sysContracts),
        ...Object.values(leaseContracts),
        ...Object.values(passwordPolicyContracts),
        ...Object.values(namespaceContracts),
        ...Object.values(historyContracts),
      ]
        .map((c) => c.subject)
        .sort(),
    );
    for (const s of subjects) expect(s).toMatch(/^core\.sys\.[a-z-]+\.[a-z-]+$/);
  });
});
