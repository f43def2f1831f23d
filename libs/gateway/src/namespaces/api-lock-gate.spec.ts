import { DomainError, NAMESPACE_UNLOCK_SUBJECT } from '@coffer/contracts';
import type { Routing } from '../routing/route-resolver';
import { lockedBy, namespaceLockedError } from './api-lock-gate.service';

const routed = (namespace: string, route: Record<string, unknown>): Routing =>
  ({
    kind: 'route',
    match: { mount: { namespace } },
    route: { operations: {}, ...route },
  }) as unknown as Routing;

describe('namespace API lock in the gateway', () => {
  it('finds the topmost locked namespace at or above the request namespace', () => {
    expect(lockedBy(['a/b/', 'a/'], routed('a/b/c/', {}), 'a/b/c/x')).toBe('a/');
    expect(lockedBy(['a/'], routed('ab/', {}), 'ab/x')).toBeUndefined();
    expect(lockedBy([], routed('a/', {}), 'a/x')).toBeUndefined();
    const failed = { kind: 'failed', error: new DomainError('unsupported_path', 'x') } as Routing;
    expect(lockedBy(['a/'], failed, 'a/nowhere')).toBe('a/');
  });

  it('exempts unauthenticated and sealed-served routes and the unlock route', () => {
    expect(lockedBy(['a/'], routed('a/', { unauthenticated: true }), 'a/sys/health')).toBeUndefined();
    expect(lockedBy(['a/'], routed('a/', { allowSealed: true }), 'a/sys/seal-status')).toBeUndefined();
    const unlock = { operations: { update: { contract: { subject: NAMESPACE_UNLOCK_SUBJECT } } } };
    expect(lockedBy(['a/'], routed('a/', unlock), 'a/sys/namespaces/api-lock/unlock')).toBeUndefined();
  });

  it("answers Vault's text", () => {
    expect(namespaceLockedError('nsA/').message).toBe(
      'API access to this namespace has been locked by an administrator - "nsA" must be unlocked to gain access.',
    );
  });
});
