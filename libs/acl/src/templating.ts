import { parseDurationNanos } from '@coffer/config';
import type { EntityFacts } from '@coffer/contracts';

/**
 * Identity templating after Vault's sdk/helper/identitytpl, in ACL mode (policy paths) or JSON
 * mode (OIDC scope templates, `mode: 'json'`: strings are JSON-quoted, `metadata` renders as an
 * object and `groups.names` / `groups.ids` as arrays, a missing value as ""). ACL mode:
 * `{{identity.entity.id}}`, `{{identity.entity.name}}`, `{{identity.entity.metadata.<k>}}`,
 * `{{identity.entity.aliases.<mount accessor>.name}}`, `{{identity.groups.ids.<id>.name}}`,
 * `{{identity.groups.names.<name>.id}}` (and `.name` / `.id` the other way round),
 * `{{time.now}}`, `{{time.now.plus.<duration>}}`, `{{time.now.minus.<duration>}}`.
 * A directive that cannot be resolved makes the whole path unusable: the caller drops it.
 */

export const UNBALANCED = 'unbalanced templating characters';

export type TemplateResult = { ok: true; value: string; templated: boolean } | { ok: false; error: string };

export interface TemplateInput {
  entity?: EntityFacts | null;
  now: Date;
  /** 'acl' (default): values verbatim, lists and maps unusable; 'json': values as JSON */
  mode?: 'acl' | 'json';
}

/** Validity check done when a policy is written: balanced `{{ }}` only, like Vault. */
export function checkTemplate(s: string): { templated: boolean; error?: string } {
  const pieces = s.split('{{');
  if (pieces[0]?.includes('}}')) return { templated: false, error: UNBALANCED };
  if (pieces.length === 1) return { templated: false };
  for (const piece of pieces.slice(1)) {
    if (piece.split('}}').length !== 2) return { templated: true, error: UNBALANCED };
  }
  return { templated: true };
}

export function populateTemplate(s: string, input: TemplateInput): TemplateResult {
  const check = checkTemplate(s);
  if (check.error) return { ok: false, error: check.error };
  if (!check.templated) return { ok: true, value: s, templated: false };
  const pieces = s.split('{{');
  let out = pieces[0] ?? '';
  for (const piece of pieces.slice(1)) {
    const [directive = '', rest = ''] = piece.split('}}');
    const value = resolve(directive.trim(), input);
    if (!value.ok) return value;
    if (/[*+]/.test(value.value))
      return { ok: false, error: 'globs and wildcards are not allowed in template result' };
    out += value.value + rest;
  }
  return { ok: true, value: out, templated: true };
}

type Resolved = { ok: true; value: string } | { ok: false; error: string };

/** A value a directive selects, before the mode renders it (Vault's templateHandler). */
type Selected = string | string[] | Record<string, string>;

/** Renders a selected value in the input's mode; `key` selects from a map. */
function render(input: TemplateInput, value: Selected, key?: string): Resolved {
  if (input.mode === 'json') {
    if (typeof value === 'string') return { ok: true, value: JSON.stringify(value) };
    if (Array.isArray(value)) return { ok: true, value: JSON.stringify(value) };
    if (key !== undefined) return { ok: true, value: JSON.stringify(ownValue(value, key) ?? '') };
    return { ok: true, value: JSON.stringify(value) };
  }
  if (typeof value === 'string') return found(value);
  if (Array.isArray(value) || key === undefined) return NOT_FOUND;
  // Vault returns a present-but-empty metadata value as is (only a missing key fails).
  const selected = ownValue(value, key);
  return selected === undefined ? NOT_FOUND : { ok: true, value: selected };
}

const ownValue = (map: Record<string, string>, key: string): string | undefined =>
  Object.hasOwn(map, key) ? map[key] : undefined;

const NOT_FOUND: Resolved = {
  ok: false,
  error: 'no value could be found for one of the template directives',
};
const found = (value: string | undefined): Resolved =>
  value === undefined || value === '' ? NOT_FOUND : { ok: true, value };

function resolve(directive: string, input: TemplateInput): Resolved {
  if (directive.startsWith('identity.entity.')) {
    if (!input.entity)
      return { ok: false, error: 'string contains entity template directives but no entity was provided' };
    return resolveEntity(directive.slice('identity.entity.'.length), input.entity, input);
  }
  if (directive.startsWith('identity.groups.')) {
    const groups = input.entity?.groups ?? [];
    if (groups.length === 0) {
      return { ok: false, error: 'string contains groups template directives but no groups were provided' };
    }
    return resolveGroups(directive.slice('identity.groups.'.length), groups);
  }
  if (directive.startsWith('time.')) return resolveTime(directive.slice('time.'.length), input.now);
  return NOT_FOUND;
}

function resolveEntity(sel: string, entity: EntityFacts, input: TemplateInput): Resolved {
  if (sel === 'id') return render(input, entity.id);
  if (sel === 'name') return render(input, entity.name);
  if (sel === 'metadata') return render(input, entity.metadata);
  if (sel.startsWith('metadata.')) return render(input, entity.metadata, sel.slice('metadata.'.length));
  if (sel === 'groups.names')
    return render(
      input,
      entity.groups.map((g) => g.name),
    );
  if (sel === 'groups.ids')
    return render(
      input,
      entity.groups.map((g) => g.id),
    );
  if (sel.startsWith('aliases.')) {
    const rest = sel.slice('aliases.'.length);
    const dot = rest.indexOf('.');
    if (dot < 0) return { ok: false, error: 'invalid alias selector' };
    const accessor = rest.slice(0, dot);
    const field = rest.slice(dot + 1);
    const alias = entity.aliases.find((a) => a.mount_accessor === accessor);
    // JSON mode renders a missing alias as an empty one (defaults), like Vault
    if (!alias && input.mode !== 'json') return { ok: false, error: 'alias not found' };
    // Alias ids and metadata are not part of EntityFacts: they render as empty.
    if (field === 'name') return render(input, alias?.name ?? '');
    if (field === 'id') return render(input, '');
    if (field === 'metadata' || field === 'custom_metadata') return render(input, {});
    for (const map of ['metadata.', 'custom_metadata.'])
      if (field.startsWith(map)) return render(input, {}, field.slice(map.length));
    return NOT_FOUND;
  }
  return NOT_FOUND;
}

function resolveGroups(sel: string, groups: EntityFacts['groups']): Resolved {
  const dot = sel.indexOf('.');
  const kind = dot < 0 ? '' : sel.slice(0, dot);
  if (kind !== 'ids' && kind !== 'names') return { ok: false, error: 'invalid groups selector' };
  const rest = sel.slice(dot + 1);
  const dot2 = rest.indexOf('.');
  if (dot2 < 0) return { ok: false, error: 'invalid groups accessor' };
  const wanted = rest.slice(0, dot2);
  const field = rest.slice(dot2 + 1);
  const group = groups.find((g) => (kind === 'ids' ? g.id : g.name) === wanted);
  if (!group) return { ok: false, error: `entity is not a member of group ${JSON.stringify(wanted)}` };
  if (field === 'id') return { ok: true, value: group.id };
  if (field === 'name') return found(group.name);
  return NOT_FOUND;
}

function resolveTime(sel: string, now: Date): Resolved {
  const parts = sel.split('.');
  if (parts[0] !== 'now') return { ok: false, error: `invalid time selector ${JSON.stringify(parts[0])}` };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (parts.length === 1) return { ok: true, value: String(nowSeconds) };
  if (parts.length === 2) return { ok: false, error: 'missing time operand' };
  const op = parts[1];
  let seconds: number;
  try {
    seconds = Number(parseDurationNanos(parts.slice(2).join('.')) / 1_000_000_000n);
  } catch (e) {
    return { ok: false, error: `invalid duration: ${(e as Error).message}` };
  }
  if (op === 'plus') return { ok: true, value: String(nowSeconds + seconds) };
  if (op === 'minus') return { ok: true, value: String(nowSeconds - seconds) };
  return { ok: false, error: `invalid time operator ${JSON.stringify(op)}` };
}
