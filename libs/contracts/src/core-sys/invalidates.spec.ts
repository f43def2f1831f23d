import type { RouteTable } from '../routes';
import { systemRoutes } from './system.routes';
import { tokenRoutes } from './token.routes';

const invalidatesOf = (table: RouteTable, pattern: string) =>
  table.routes.find((r) => r.pattern === pattern)?.invalidates ?? [];

// The gateway drops these caches right after a successful write through the route, without
// waiting for core-sys's invalidation broadcast.
describe('routes that make gateway caches stale', () => {
  it.each(['init', 'unseal', 'seal'])('sys/%s drops the seal state and the mount table', (pattern) => {
    expect(invalidatesOf(systemRoutes, pattern)).toEqual(['mounts', 'seal']);
  });

  it.each(['mounts/:path*', 'mounts/:path*/tune', 'auth/:path*', 'auth/:path*/tune'])(
    'sys/%s drops the mount table',
    (pattern) => {
      expect(invalidatesOf(systemRoutes, pattern)).toEqual(['mounts']);
    },
  );

  it('every token revocation drops the resolved tokens, and nothing else in auth/token does', () => {
    const revoking = tokenRoutes.routes
      .filter((r) => r.invalidates?.includes('tokens'))
      .map((r) => r.pattern);
    expect(revoking.sort()).toEqual(['revoke', 'revoke-accessor', 'revoke-orphan', 'revoke-self']);
  });
});
