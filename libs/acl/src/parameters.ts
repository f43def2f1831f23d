import type { PathPermissions } from './policy.types';

/**
 * Request-parameter constraints, exactly as Vault's ACL.AllowOperation applies them (for read,
 * create, update and patch): required parameters must be present; a request without data is
 * then allowed; denied_parameters win over allowed_parameters ("*" denies any data); with
 * allowed_parameters set, every key must be allowed (or "*" present) and, when its list is not
 * empty, its value must be in the list. String list entries may glob with a leading and/or
 * trailing `*`; list values must have every element allowed (any element denied denies), and a
 * string value is also read as a comma-separated list.
 */
export function parametersAllowed(
  perms: PathPermissions,
  params: Readonly<Record<string, unknown>>,
): boolean {
  for (const name of perms.requiredParameters) {
    if (!Object.hasOwn(params, name.toLowerCase())) return false;
  }
  const keys = Object.keys(params);
  if (keys.length === 0) return true;

  const denied = perms.deniedParameters;
  if (denied && denied.size > 0) {
    if (denied.has('*')) return false;
    for (const key of keys) {
      const values = denied.get(key.toLowerCase());
      if (values && valueInDeniedList(params[key], values)) return false;
    }
  }

  const allowed = perms.allowedParameters;
  if (!allowed || allowed.size === 0) return true;
  const allowedAll = allowed.has('*');
  if (allowed.size === 1 && allowedAll) return true;
  for (const key of keys) {
    const values = allowed.get(key.toLowerCase());
    if (!values) {
      if (!allowedAll) return false;
      continue;
    }
    if (!valueInAllowedList(params[key], values)) return false;
  }
  return true;
}

function valueInAllowedList(v: unknown, list: readonly unknown[]): boolean {
  if (list.length === 0) return true;
  if (valueInList(v, list)) return true;
  if (Array.isArray(v)) return v.every((e) => valueInList(e, list));
  if (typeof v === 'string') return commaList(v).every((e) => valueInList(e, list));
  return false;
}

function valueInDeniedList(v: unknown, list: readonly unknown[]): boolean {
  if (list.length === 0) return true;
  if (valueInList(v, list)) return true;
  if (Array.isArray(v)) return v.some((e) => valueInList(e, list));
  if (typeof v === 'string') return commaList(v).some((e) => valueInList(e, list));
  return false;
}

/** parseutil.ParseCommaStringSlice: "" is an empty list, otherwise split on "," and trim. */
function commaList(s: string): string[] {
  return s === '' ? [] : s.split(',').map((e) => e.trim());
}

function valueInList(v: unknown, list: readonly unknown[]): boolean {
  for (const el of list) {
    if (el === null || el === undefined || v === null || v === undefined) {
      if ((el ?? null) === (v ?? null)) return true;
    } else if (typeof el === 'string') {
      if (typeof v === 'string' && globbedStringsMatch(el, v)) return true;
    } else if (deepEqual(el, v)) {
      return true;
    }
  }
  return false;
}

/** strutil.GlobbedStringsMatch: a lone "*" is literal; "*x", "x*" and "*x*" glob. */
export function globbedStringsMatch(item: string, val: string): boolean {
  if (item.length < 2) return val === item;
  const prefix = item.startsWith('*');
  const suffix = item.endsWith('*');
  if (prefix && suffix) return val.includes(item.slice(1, -1));
  if (prefix) return val.endsWith(item.slice(1));
  if (suffix) return val.startsWith(item.slice(0, -1));
  return val === item;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}
