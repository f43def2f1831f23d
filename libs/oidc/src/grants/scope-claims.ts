import { populateTemplate } from '@coffer/acl';
import type { EntityFacts } from '@coffer/contracts';
import { RESERVED_CLAIMS } from '../config/oidc-config.decider';

export type ScopeClaims = { ok: true; claims: Record<string, unknown> } | { ok: false; conflict: string };

/**
 * The claims of the requested scopes for an entity, as Vault's populateScopeTemplates: each
 * template rendered in JSON mode; a template that fails to render or parse at this point (its
 * structure was checked when written) adds nothing; two scopes setting one top-level claim are a
 * conflict; the ID token's own claims are never overwritten.
 */
export function scopeClaims(
  templates: readonly { scope: string; template: string }[],
  entity: EntityFacts,
  now: Date,
): ScopeClaims {
  const owners = new Map<string, string>();
  const claims: Record<string, unknown> = {};
  for (const { scope, template } of templates) {
    if (template === '') continue;
    const rendered = populateTemplate(template, { entity, now, mode: 'json' });
    if (!rendered.ok) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(rendered.value);
    } catch {
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
    for (const [claim, value] of Object.entries(parsed)) {
      const other = owners.get(claim);
      if (other !== undefined) {
        return {
          ok: false,
          conflict: `found scopes with conflicting top-level claim: claim ${JSON.stringify(claim)} in scopes ${JSON.stringify(scope)}, ${JSON.stringify(other)}`,
        };
      }
      owners.set(claim, scope);
      if (!RESERVED_CLAIMS.includes(claim))
        Object.defineProperty(claims, claim, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return { ok: true, claims };
}
