import { activity } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { ApiError } from '../core/cli-errors';
import { formatValue, isObject } from '../core/cli-format';

/** Where a kv path lives: the mount, the path inside it, and the engine version. */
export interface KvTarget {
  mount: string;
  path: string;
  version: 1 | 2;
}

const trimSlashes = (p: string): string => p.replace(/^\/+|\/+$/g, '');

/**
 * Splits `secret/foo/bar` at a known mount path ("secret/"). The server names the mount relative
 * to the request's namespace, so a namespace given as a path prefix (`ns1/secret/foo`) stays in
 * front of the mount: `ns1/secret` + `foo`.
 */
export function splitMountPath(full: string, mountPath: string): { mount: string; path: string } {
  const mount = trimSlashes(mountPath);
  const clean = full.replace(/^\/+/, '');
  if (clean === mount) return { mount, path: '' };
  if (clean.startsWith(`${mount}/`)) return { mount, path: clean.slice(mount.length + 1) };
  const inside = clean.indexOf(`/${mount}/`);
  if (inside >= 0) {
    return { mount: clean.slice(0, inside + mount.length + 1), path: clean.slice(inside + mount.length + 2) };
  }
  if (clean.endsWith(`/${mount}`)) return { mount: clean, path: '' };
  return { mount, path: clean };
}

/**
 * Finds the mount and its version the way Vault's `kv` helper does: sys/internal/ui/mounts/<path>.
 * With -mount the path is relative to that mount.
 */
export async function resolveKv(
  ctx: CliContext,
  arg: string,
  mountFlag: string | undefined,
): Promise<KvTarget> {
  const probe =
    mountFlag === undefined ? trimSlashes(arg) : `${trimSlashes(mountFlag)}/${arg.replace(/^\/+/, '')}`;
  activity.doing = `looking up the mount of ${probe}`;
  let res;
  try {
    res = await ctx.http.get(`sys/internal/ui/mounts/${probe}`, { allowNotFound: true, noWrap: true });
  } catch (e) {
    // Vault's helper falls back to v1 when the token may not read the mount table
    if (e instanceof ApiError && e.status === 403) res = undefined;
    else throw e;
  }
  const data = res?.status === 200 && isObject(res.body?.data) ? res.body.data : undefined;
  const mountPath = typeof data?.path === 'string' && data.path !== '' ? data.path : undefined;
  const options = isObject(data?.options) ? data.options : {};
  const version = formatValue(options.version ?? '1') === '2' ? 2 : 1;
  if (mountFlag !== undefined)
    return { mount: trimSlashes(mountFlag), path: arg.replace(/^\/+/, ''), version };
  if (mountPath === undefined) {
    const [first, ...rest] = trimSlashes(arg).split('/');
    return { mount: first ?? '', path: rest.join('/'), version };
  }
  return { ...splitMountPath(arg, mountPath), version };
}

export const v2Path = (t: KvTarget, part: string): string =>
  `${t.mount}/${part}${t.path === '' ? '' : `/${t.path}`}`;
export const v1Path = (t: KvTarget): string => `${t.mount}${t.path === '' ? '' : `/${t.path}`}`;
