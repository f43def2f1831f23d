import { DEFAULT_POLICY_NAME, parsePolicy, ROOT_POLICY_NAME } from '@coffer/acl';
import { invalidRequest, type SysPolicyBody } from '@coffer/contracts';
import type { PolicyEvent } from './policy.events';

/**
 * Pure ACL-policy rules (Vault's handlePoliciesSet / policy_store): names, base64 bodies,
 * the immutable root policy and the undeletable default policy.
 */

/**
 * Vault lower-cases policy names (and the parser trims them). A policy of a namespace is stored
 * under its qualified name "ns1/ns2/name" (names have no "/"): only the name is lower-cased.
 */
export function normalisePolicyName(name: string): string {
  const cut = name.lastIndexOf('/');
  return cut < 0
    ? name.trim().toLowerCase()
    : name.slice(0, cut + 1) +
        name
          .slice(cut + 1)
          .trim()
          .toLowerCase();
}

/** The stored name of a policy of a namespace ("" = root). */
export function qualifiedPolicyName(namespace: string, name: string): string {
  return namespace + name;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parses(name: string, text: string): boolean {
  try {
    parsePolicy(name, text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A policy may be sent base64-encoded. It is decoded only when it is strict base64 of valid
 * UTF-8 that parses as a policy, so a plain policy is never mangled by an accidental decode.
 */
export function decodePolicyText(name: string, text: string): string {
  if (text.length === 0 || !STRICT_BASE64.test(text)) return text;
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(text, 'base64'));
  } catch {
    return text;
  }
  return parses(name, decoded) ? decoded : text;
}

export interface WriteDecision {
  event: PolicyEvent;
  warnings: string[];
}

/**
 * POST sys/policies/acl/:name (and the legacy sys/policy/:name, which also takes `rules`).
 * Parse errors are thrown as they come from the parser, with line and column.
 */
export function decideWrite(rawName: string, body: SysPolicyBody, legacy: boolean): WriteDecision {
  const name = normalisePolicyName(rawName);
  if (name === '') throw invalidRequest('policy name must be provided in the URL');
  const warnings: string[] = [];
  let text = body.policy;
  if (text === '' && legacy && body.rules !== '') {
    text = body.rules;
    warnings.push("'rules' is deprecated, please use 'policy' instead");
  }
  if (text === '') throw invalidRequest("'policy' parameter not supplied or empty");
  const policy = decodePolicyText(name, text);
  parsePolicy(name, policy);
  if (name === ROOT_POLICY_NAME) throw invalidRequest('cannot update root policy');
  return { event: { type: 'PolicyWritten', data: { name, policy } }, warnings };
}

/** Deleting a policy that does not exist succeeds without an event. */
export function decideDelete(rawName: string, exists: boolean): PolicyEvent | undefined {
  const name = normalisePolicyName(rawName);
  if (name === ROOT_POLICY_NAME) throw invalidRequest('cannot delete root policy');
  if (name === DEFAULT_POLICY_NAME) throw invalidRequest('cannot delete default policy');
  return exists ? { type: 'PolicyDeleted', data: { name } } : undefined;
}

/** LIST keys: stored names sorted, then the implicit root policy (Vault appends it). */
export function listKeys(stored: readonly string[]): string[] {
  return [...stored.filter((n) => n !== ROOT_POLICY_NAME)].sort().concat(ROOT_POLICY_NAME);
}
