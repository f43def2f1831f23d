import { invalidRequest, notFound, type DomainError, type JsonObject } from '@coffer/contracts';
import type { NamespaceEvent } from './namespace.events';

/** One namespace of the tree (full path, trailing slash). */
export interface NamespaceRecord {
  id: string;
  path: string;
  customMetadata: Record<string, string>;
  /** deletion started */
  deleting: boolean;
  /** API locked (sys/namespaces/api-lock): the SHA-256 of its unlock key, else null */
  unlockKeyHash: string | null;
}

/** Vault's reserved names: they are the paths of the built-in mounts (and of the root). */
export const RESERVED_NAMESPACE_NAMES = ['root', 'sys', 'audit', 'auth', 'cubbyhole', 'identity'] as const;

const BAD_CHARACTERS = /[\s\\/%+*?#\0]/u;

/**
 * A namespace path relative to the request's namespace: "ns2", "ns2/", "/ns2/ns3/" -> ["ns2"],
 * ["ns2", "ns3"]. Every segment is a valid name.
 */
export function namespaceSegments(rawPath: string): string[] {
  const segments = rawPath.split('/').filter((s) => s !== '');
  if (segments.length === 0) throw invalidRequest('namespace path must not be empty');
  for (const name of segments) {
    if (name === '.' || name === '..') throw invalidRequest(`invalid namespace name ${JSON.stringify(name)}`);
    if (BAD_CHARACTERS.test(name))
      throw invalidRequest(`namespace name ${JSON.stringify(name)} contains an invalid character`);
    if ((RESERVED_NAMESPACE_NAMES as readonly string[]).includes(name))
      throw invalidRequest(
        `${JSON.stringify(name)} is a reserved path and cannot be used as a namespace name`,
      );
  }
  return segments;
}

/** The full path of a namespace named relative to `parent` ("" = root). */
export function fullNamespacePath(parent: string, rawPath: string): string {
  return `${parent}${namespaceSegments(rawPath).join('/')}/`;
}

/** "ns1/ns2/" -> "ns1/"; "ns1/" -> "". */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/', path.length - 2);
  return cut < 0 ? '' : path.slice(0, cut + 1);
}

const live = (tree: readonly NamespaceRecord[], path: string): NamespaceRecord | undefined =>
  tree.find((n) => n.path === path && !n.deleting);

export const namespaceNotFound = (): DomainError => notFound();

export interface CreateCommand {
  /** full path */
  path: string;
  customMetadata: Record<string, string> | undefined;
  /** mount paths of the parent namespace (relative to it) */
  parentMounts: readonly string[];
  newId: () => string;
}

/**
 * Creates a namespace, or sets the custom metadata of an existing one (a create of an existing
 * path answers it, as Vault). The parent must exist; its mounts must not use the name.
 */
export function decideCreate(
  tree: readonly NamespaceRecord[],
  cmd: CreateCommand,
): NamespaceEvent | undefined {
  const existing = tree.find((n) => n.path === cmd.path);
  if (existing?.deleting) throw invalidRequest(`namespace ${JSON.stringify(cmd.path)} is being deleted`);
  if (existing) {
    if (cmd.customMetadata === undefined) return undefined;
    return { type: 'NamespaceMetadataSet', data: { path: cmd.path, customMetadata: cmd.customMetadata } };
  }
  const parent = parentOf(cmd.path);
  if (parent !== '' && !live(tree, parent))
    throw invalidRequest(`parent namespace ${JSON.stringify(parent)} does not exist`);
  const name = cmd.path.slice(parent.length);
  if (cmd.parentMounts.some((m) => m === name || m.startsWith(name)))
    throw invalidRequest(
      `cannot create namespace ${JSON.stringify(cmd.path)}: path is already in use by a mount`,
    );
  return {
    type: 'NamespaceCreated',
    data: { id: cmd.newId(), path: cmd.path, customMetadata: cmd.customMetadata ?? {} },
  };
}

/** PATCH: a JSON merge patch of the custom metadata (null removes a key). */
export function decidePatch(
  tree: readonly NamespaceRecord[],
  path: string,
  patch: JsonObject | undefined,
): NamespaceEvent | undefined {
  const existing = live(tree, path);
  if (!existing) throw namespaceNotFound();
  if (patch === undefined) return undefined;
  const next: Record<string, string> = { ...existing.customMetadata };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (typeof value === 'string') next[key] = value;
    else throw invalidRequest(`custom_metadata values must be strings (key ${JSON.stringify(key)})`);
  }
  return { type: 'NamespaceMetadataSet', data: { path, customMetadata: next } };
}

/**
 * DELETE: refused while the namespace has children; a missing namespace is already deleted.
 * A deletion that was interrupted is resumed (no new event).
 */
export function decideDeleteStart(
  tree: readonly NamespaceRecord[],
  path: string,
): NamespaceEvent | 'resume' | undefined {
  const existing = tree.find((n) => n.path === path);
  if (!existing) return undefined;
  if (tree.some((n) => n.path !== path && n.path.startsWith(path)))
    throw invalidRequest(`cannot delete namespace (${JSON.stringify(path)}) containing child namespaces`);
  if (existing.deleting) return 'resume';
  return { type: 'NamespaceDeletionStarted', data: { path } };
}

export function evolveTree(tree: readonly NamespaceRecord[], event: NamespaceEvent): NamespaceRecord[] {
  switch (event.type) {
    case 'NamespaceCreated':
      return [...tree, { ...event.data, deleting: false, unlockKeyHash: null }];
    case 'NamespaceMetadataSet':
      return tree.map((n) =>
        n.path === event.data.path ? { ...n, customMetadata: event.data.customMetadata } : n,
      );
    case 'NamespaceDeletionStarted':
      return tree.map((n) => (n.path === event.data.path ? { ...n, deleting: true } : n));
    case 'NamespaceDeleted':
      return tree.filter((n) => n.path !== event.data.path);
    case 'NamespaceApiLocked':
      return tree.map((n) =>
        n.path === event.data.path ? { ...n, unlockKeyHash: event.data.unlockKeyHash } : n,
      );
    case 'NamespaceApiUnlocked':
      return tree.map((n) => (n.path === event.data.path ? { ...n, unlockKeyHash: null } : n));
  }
}

/** The direct children of `parent`, live, sorted by path. */
export function childrenOf(tree: readonly NamespaceRecord[], parent: string): NamespaceRecord[] {
  return tree
    .filter(
      (n) => !n.deleting && n.path.startsWith(parent) && parentOf(n.path) === parent && n.path !== parent,
    )
    .sort((a, b) => a.path.localeCompare(b.path));
}
