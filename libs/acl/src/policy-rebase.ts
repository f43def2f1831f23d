import type { Policy, PolicyPath } from './policy.types';

/**
 * A policy of an ancestor namespace applied to a token below it (a group of the ancestor that
 * holds the token's entity). Its paths are relative to the ancestor, the token's requests are
 * checked relative to the token's own namespace, so each path is rebased by `between`, the
 * namespaces from the ancestor down to the token's ("ns2/" for a policy of "ns1/" and a token
 * of "ns1/ns2/"). A path that cannot reach into `between` grants nothing there and is dropped:
 * the token cannot act above its namespace anyway.
 */
export function rebasePolicy(policy: Policy, between: string): Policy {
  if (between === '') return policy;
  const paths: PolicyPath[] = [];
  for (const rule of policy.paths) {
    const path = rebasePath(rule.path, between);
    if (path !== undefined) paths.push({ ...rule, path });
  }
  return { ...policy, paths };
}

/** One policy path seen from `between` below its namespace, or undefined when it reaches nothing there. */
export function rebasePath(path: string, between: string): string | undefined {
  let rest = path.startsWith('/') ? path.slice(1) : path;
  for (const segment of between.split('/').filter((s) => s !== '')) {
    if (rest.startsWith(`${segment}/`)) rest = rest.slice(segment.length + 1);
    else if (rest.startsWith('+/')) rest = rest.slice(2);
    else if (isSegmentGlob(rest) && `${segment}/`.startsWith(rest.slice(0, -1))) return '*';
    else return undefined;
  }
  return rest;
}

/** A prefix glob within one segment ("ns*", "*"): it covers everything below what it matches. */
const isSegmentGlob = (p: string): boolean =>
  p.endsWith('*') && !p.slice(0, -1).includes('/') && !p.includes('+');
