import { DomainError, invalidRequest } from '@coffer/contracts';

/**
 * Path and folder rules shared by kv v1, kv v2 and cubbyhole. Secret paths are mount-relative,
 * "/"-separated; a folder is a path prefix ending in "/" ("" is the mount root). Listing works on
 * one folder level: names of secrets directly in it, and sub-folders (with a trailing "/").
 */

/** Throws unless `path` names a secret: no empty, "." or ".." segment, no trailing "/" or ".". */
export function assertSecretPath(path: string): void {
  if (path === '') throw invalidRequest('missing path');
  assertSegments(path.endsWith('/') ? path.slice(0, -1) : path);
  if (path.endsWith('/')) throw invalidRequest('invalid path: a secret path cannot end with "/"');
  // Spec (conventions): path parameters must not end in a period -> 404 unsupported path.
  if (path.endsWith('.')) throw new DomainError('unsupported_path', 'unsupported path');
}

/** True when `path` passes assertSecretPath (used where Vault answers 404 rather than 400). */
export function isSecretPath(path: string): boolean {
  try {
    assertSecretPath(path);
    return true;
  } catch {
    return false;
  }
}

/** The folder a LIST addresses: "" for the root, else the path with exactly one trailing "/". */
export function listFolder(path: string): string {
  if (path === '' || path === '/') return '';
  const folder = path.endsWith('/') ? path : `${path}/`;
  assertSegments(folder.slice(0, -1));
  return folder;
}

function assertSegments(path: string): void {
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw invalidRequest('invalid path: empty, "." and ".." segments are not allowed');
    }
  }
}

/**
 * The entry a descendant path contributes to a listing of `folder`: the next segment, with a
 * trailing "/" when the path goes deeper (a sub-folder).
 */
export function childEntry(folder: string, path: string): string {
  const rest = path.slice(folder.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? rest : rest.slice(0, slash + 1);
}

/**
 * The smallest path (in byte order) that sorts after every path inside the sub-folder `entry`
 * ("a/") of `folder`: the trailing "/" (0x2F) becomes "0" (0x30), its successor. Used to skip a
 * whole sub-folder in an index range scan.
 */
export function afterSubfolder(folder: string, entry: string): string {
  return `${folder}${entry.slice(0, -1)}0`;
}

/** Upper bound (exclusive) of the byte-ordered range of paths under `folder`. */
export function folderUpperBound(folder: string): string | undefined {
  return folder === '' ? undefined : afterSubfolder('', folder);
}
