import type { z } from 'zod';

/**
 * The one place that turns a failed request parse into the text the caller reads. Contract
 * schemas attach Vault's exact text to their issues (addVaultIssue); a text may depend on the
 * field's name, which only the issue's path knows. Issues without one (a plain zod check) read
 * "invalid request body: <field>: <zod message>".
 */

const VAULT_TEXT = 'vaultText';

/** Vault's text for a failed field: fixed, or built from the field's name ("max_versions"). */
export type VaultText = string | ((field: string) => string);

/** The part of zod's refinement context the field schemas use. */
export interface IssueSink {
  addIssue(issue: {
    code: 'custom';
    message: string;
    input?: unknown;
    params?: Record<string, unknown>;
  }): void;
}

/** Fails the value being parsed with Vault's text (shown verbatim to the caller). */
export function addVaultIssue(ctx: IssueSink, input: unknown, text: VaultText): void {
  const message = typeof text === 'string' ? text : text('<field>');
  ctx.addIssue({ code: 'custom', message, input, params: { [VAULT_TEXT]: text } });
}

/** The field an issue is about: the last named segment of its path ("versions" for versions[2]). */
function fieldOf(path: readonly PropertyKey[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const seg = path[i];
    if (typeof seg === 'string') return seg;
  }
  return '';
}

function vaultTextOf(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'custom') return undefined;
  const text: unknown = issue.params?.[VAULT_TEXT];
  if (typeof text === 'string') return text;
  if (typeof text === 'function') return (text as (field: string) => string)(fieldOf(issue.path));
  return undefined;
}

/** Request parts whose issues are grouped under "invalid request <part>: ...". */
const PARTS = new Set(['body', 'query', 'params']);

const at = (path: readonly PropertyKey[], message: string): string => {
  const where = path.map(String).join('.');
  return where === '' ? message : `${where}: ${message}`;
};

/**
 * The message of DomainError('invalid_request') for a request that does not match its contract:
 * the first issue carrying Vault's text (Vault reports one field at a time), else every issue.
 */
export function formatRequestIssues(error: z.ZodError): string {
  for (const issue of error.issues) {
    const text = vaultTextOf(issue);
    if (text !== undefined) return text;
  }
  const grouped = new Map<string, string[]>();
  for (const issue of error.issues) {
    const [head, ...rest] = issue.path;
    const part = typeof head === 'string' && PARTS.has(head) && rest.length > 0 ? head : '';
    const key = part === '' ? '' : `invalid request ${part}: `;
    const list = grouped.get(key) ?? [];
    list.push(part === '' ? at(issue.path, issue.message) : at(rest, issue.message));
    grouped.set(key, list);
  }
  return [...grouped].map(([prefix, items]) => `${prefix}${items.join('; ')}`).join('; ');
}
