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

/** token policies + identity policies, as Vault reports them in `auth.policies`. */
export function combinedPolicies(
  tokenPolicies: readonly string[],
  identityPolicies: readonly string[],
): string[] {
  return dedupeSorted([...tokenPolicies, ...identityPolicies]);
}
