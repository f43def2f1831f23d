import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, invalidRequest, permissionDenied } from '@coffer/contracts';
import type { NamespaceEvent } from './namespace.events';
import type { NamespaceRecord } from './namespace.decider';

/**
 * sys/namespaces/api-lock (Vault Enterprise's namespace API lock). A locked namespace and all its
 * descendants answer 503 to every non-exempt request; the unlock key given at lock time (or a
 * root token) unlocks it. A descendant locked on its own stays locked when its ancestor is
 * unlocked, and cannot be unlocked while an ancestor is.
 */

export const hashUnlockKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** The namespace the lock applies to: the request's, or a descendant named by the subpath. */
export function lockTarget(
  tree: readonly NamespaceRecord[],
  namespace: string,
  subpath: string,
): NamespaceRecord {
  const segments = subpath.split('/').filter((s) => s !== '');
  const path = namespace + segments.map((s) => `${s}/`).join('');
  if (path === '') throw invalidRequest('the root namespace cannot be locked');
  const found = tree.find((n) => n.path === path && !n.deleting);
  if (!found) throw invalidRequest(`namespace ${JSON.stringify(path)} does not exist`);
  return found;
}

export function decideLock(target: NamespaceRecord, unlockKey: string): NamespaceEvent {
  if (target.unlockKeyHash !== null)
    throw invalidRequest(`namespace ${JSON.stringify(target.path)} is already locked`);
  return { type: 'NamespaceApiLocked', data: { path: target.path, unlockKeyHash: hashUnlockKey(unlockKey) } };
}

export interface UnlockCommand {
  target: NamespaceRecord;
  tree: readonly NamespaceRecord[];
  unlockKey: string;
  /** the caller holds a root token: no key needed (Vault's override) */
  root: boolean;
}

export function decideUnlock(cmd: UnlockCommand): NamespaceEvent {
  const { target } = cmd;
  if (target.unlockKeyHash === null)
    throw invalidRequest(`namespace ${JSON.stringify(target.path)} is not locked`);
  const ancestor = cmd.tree.find(
    (n) => n.unlockKeyHash !== null && n.path !== target.path && target.path.startsWith(n.path),
  );
  if (ancestor)
    throw new DomainError(
      'service_unavailable',
      `API access to this namespace has been locked by an administrator - ${JSON.stringify(ancestor.path.replace(/\/$/, ''))} must be unlocked to gain access.`,
    );
  if (!cmd.root) {
    if (cmd.unlockKey === '') throw invalidRequest('missing unlock_key');
    const given = Buffer.from(hashUnlockKey(cmd.unlockKey), 'hex');
    if (!timingSafeEqual(given, Buffer.from(target.unlockKeyHash, 'hex'))) throw permissionDenied();
  }
  return { type: 'NamespaceApiUnlocked', data: { path: target.path } };
}
