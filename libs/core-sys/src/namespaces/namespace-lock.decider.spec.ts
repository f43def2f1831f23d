import { isDomainError } from '@coffer/contracts';
import type { NamespaceRecord } from './namespace.decider';
import { decideLock, decideUnlock, hashUnlockKey, lockTarget } from './namespace-lock.decider';

const ns = (path: string, key?: string): NamespaceRecord => ({
  id: path.slice(0, 5),
  path,
  customMetadata: {},
  deleting: false,
  unlockKeyHash: key === undefined ? null : hashUnlockKey(key),
});

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('namespace API lock', () => {
  const tree = [ns('a/'), ns('a/b/'), ns('c/')];

  it('targets the request namespace or a descendant named by the subpath, never the root', () => {
    expect(lockTarget(tree, 'a/', '').path).toBe('a/');
    expect(lockTarget(tree, 'a/', 'b').path).toBe('a/b/');
    expect(lockTarget(tree, '', '/a/b/').path).toBe('a/b/');
    expect(failure(() => lockTarget(tree, '', '')).message).toBe('the root namespace cannot be locked');
    expect(failure(() => lockTarget(tree, 'a/', 'zz')).code).toBe('invalid_request');
  });

  it('locks once, keeping only the hash of the key', () => {
    const event = decideLock(ns('a/'), 'k3y');
    expect(event).toEqual({
      type: 'NamespaceApiLocked',
      data: { path: 'a/', unlockKeyHash: hashUnlockKey('k3y') },
    });
    expect(failure(() => decideLock(ns('a/', 'x'), 'y')).message).toMatch(/already locked/);
  });

  it('unlocks with the key or a root token; a wrong key is refused; an ancestor lock comes first', () => {
    const locked = ns('a/', 'k3y');
    expect(decideUnlock({ target: locked, tree: [locked], unlockKey: 'k3y', root: false }).type).toBe(
      'NamespaceApiUnlocked',
    );
    expect(decideUnlock({ target: locked, tree: [locked], unlockKey: '', root: true }).type).toBe(
      'NamespaceApiUnlocked',
    );
    expect(
      failure(() => decideUnlock({ target: locked, tree: [locked], unlockKey: 'no', root: false })).code,
    ).toBe('permission_denied');
    expect(
      failure(() => decideUnlock({ target: locked, tree: [locked], unlockKey: '', root: false })).message,
    ).toBe('missing unlock_key');
    expect(
      failure(() => decideUnlock({ target: ns('a/'), tree, unlockKey: 'k', root: true })).message,
    ).toMatch(/not locked/);
    const child = ns('a/b/', 'kid');
    const both = [locked, child];
    expect(failure(() => decideUnlock({ target: child, tree: both, unlockKey: 'kid', root: false }))).toEqual(
      {
        code: 'service_unavailable',
        message:
          'API access to this namespace has been locked by an administrator - "a" must be unlocked to gain access.',
      },
    );
  });
});
