import { invalidRequest } from '@coffer/contracts';

/**
 * Vault's policyutil rules for the policy lists carried by tokens: lower-cased, trimmed, no empty
 * names, sorted and deduplicated; "root" swallows everything else; "default" is added on request.
 */
export function sanitizePolicies(policies: readonly string[], addDefault: boolean): string[] {
  const out: string[] = [];
  let defaultFound = false;
  for (const raw of policies) {
    const p = raw.trim().toLowerCase();
    if (p === '') continue;
    if (p === 'root') return ['root'];
    if (p === 'default') defaultFound = true;
    out.push(p);
  }
  if (addDefault && !defaultFound) out.push('default');
  return dedupeSorted(out);
}

export function dedupeSorted(list: readonly string[]): string[] {
  return [...new Set(list)].sort();
}

/** True when every element of `subset` is in `superset`. */
export function isSubset(superset: readonly string[], subset: readonly string[]): boolean {
  const s = new Set(superset);
  return subset.every((p) => s.has(p));
}

/** Vault's TypeCommaStringSlice: an array, or a comma-separated string; entries trimmed, empties dropped. */
export function parseStringList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value.map(scalarText) : scalarText(value).split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** token policies + identity policies, as Vault reports them in `auth.policies`. */
export function combinedPolicies(
  tokenPolicies: readonly string[],
  identityPolicies: readonly string[],
): string[] {
  return dedupeSorted([...tokenPolicies, ...identityPolicies]);
}

/** Text of a JSON scalar; nested objects are not valid list items. */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalidRequest('expected a list of strings or a comma-separated string');
}
