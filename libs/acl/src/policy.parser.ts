import { parseDurationNanos } from '@coffer/config';
import {
  HclParseError,
  expressionToValue,
  looksLikeJson,
  parseHcl,
  parseHclJson,
  type HclBody,
  type HclExpression,
  type HclItem,
  type Position,
} from '@coffer/hcl';
import { CAP, isCapability, type Capability } from './capabilities';
import { multiError } from '@coffer/contracts';
import { PolicyParseError } from './acl-errors';
import type { PathPermissions, Policy, PolicyPath } from './policy.types';
import { checkTemplate } from './templating';

export interface ParsePolicyOptions {
  /** namespace path ("" for root, else "ns1/"); prefixed to every rule's path */
  namespace?: string;
}

const TOP_LEVEL_KEYS = ['name', 'path'];
const PATH_KEYS = [
  'comment',
  'policy',
  'capabilities',
  'allowed_parameters',
  'denied_parameters',
  'required_parameters',
  'min_wrapping_ttl',
  'max_wrapping_ttl',
  'mfa_methods',
  'control_group',
  'subscribe_event_types',
];

/**
 * The legacy `policy = "..."` shorthand (Vault < 0.5). A Map, as the value is the policy author's:
 * "constructor" or "toString" must be an invalid policy, not an Object.prototype member.
 */
const LEGACY_POLICIES: ReadonlyMap<string, readonly Capability[]> = new Map([
  ['deny', ['deny']],
  ['read', ['read', 'list']],
  ['write', ['create', 'read', 'update', 'delete', 'list']],
  ['sudo', ['create', 'read', 'update', 'delete', 'list', 'sudo']],
]);

const FAILED = 'failed to parse policy: ';

interface PathEntry {
  pattern: string;
  body: HclBody;
  pos: Position;
}

/** Thrown inside the parser with a position; converted to PolicyParseError at the top. */
class Fail extends Error {
  constructor(
    message: string,
    readonly pos?: Position,
  ) {
    super(message);
  }
}

/**
 * Parses an ACL policy in HCL or JSON form (`{"path":{"secret/foo":{"capabilities":["read"]}}}`).
 * Throws PolicyParseError (an invalid_request DomainError) with Vault's messages and, where
 * known, the line and column of the offending construct.
 */
export function parsePolicy(name: string, text: string, options: ParsePolicyOptions = {}): Policy {
  try {
    const body = parseRoot(text);
    checkKeys(body, TOP_LEVEL_KEYS, undefined);
    const namespace = options.namespace ?? '';
    const paths = collectPathEntries(body).map((entry) => parsePathEntry(entry, namespace));
    return {
      name: name.trim().toLowerCase(),
      raw: text,
      namespace,
      paths,
      templated: paths.some((p) => p.templated),
    };
  } catch (e) {
    if (e instanceof HclParseError) throw new PolicyParseError(FAILED + e.message, e.line, e.column);
    if (e instanceof Fail) {
      throw new PolicyParseError(FAILED + e.message, e.pos?.line, e.pos?.column);
    }
    throw e;
  }
}

function parseRoot(text: string): HclBody {
  if (!looksLikeJson(text)) return parseHcl(text);
  const root = parseHclJson(text);
  if (root.type !== 'Object') throw new Fail('does not contain a root object', root.pos);
  return root.body;
}

function checkKeys(body: HclBody, valid: string[], pathKey: string | undefined): void {
  const invalid = body.items.filter((i) => !valid.includes(i.key));
  const first = invalid[0];
  if (!first) return;
  const prefix = pathKey === undefined ? '' : `path ${JSON.stringify(pathKey)}: `;
  const errors = invalid.map((i) => `${prefix}invalid key ${JSON.stringify(i.key)} on line ${i.pos.line}`);
  throw new Fail(multiError(...errors), first.pos);
}

function collectPathEntries(body: HclBody): PathEntry[] {
  const entries: PathEntry[] = [];
  for (const item of body.items) {
    if (item.key !== 'path') continue;
    if (item.type === 'Block') {
      const [pattern, ...extra] = item.labels;
      if (pattern === undefined || extra.length > 0) {
        throw new Fail('a path block needs exactly one label, the path: path "secret/*" { ... }', item.pos);
      }
      entries.push({ pattern, body: item.body, pos: item.pos });
      continue;
    }
    const value = item.value;
    const maps = value.type === 'List' ? value.items : [value];
    for (const map of maps) {
      if (map.type !== 'Object') throw new Fail('"path" must map paths to rule objects', map.pos);
      for (const rule of map.body.items) entries.push(ruleEntry(rule));
    }
  }
  return entries;
}

function ruleEntry(rule: HclItem): PathEntry {
  if (rule.type === 'Block' && rule.labels.length === 0)
    return { pattern: rule.key, body: rule.body, pos: rule.pos };
  if (rule.type === 'Attribute' && rule.value.type === 'Object') {
    return { pattern: rule.key, body: rule.value.body, pos: rule.pos };
  }
  throw new Fail(`path ${JSON.stringify(rule.key)}: rules must be an object`, rule.pos);
}

function parsePathEntry(entry: PathEntry, namespace: string): PolicyPath {
  const key = entry.pattern;
  const q = JSON.stringify(key);
  const template = checkTemplate(key);
  if (template.error) throw new Fail(`failed to validate policy templating: ${template.error}`, entry.pos);
  checkKeys(entry.body, PATH_KEYS, key);
  const fields = fieldMap(entry.body, key);

  for (const unsupported of ['mfa_methods', 'control_group']) {
    const item = fields.get(unsupported);
    // Accepting and ignoring these Enterprise settings would grant access without the MFA or
    // approval the policy author asked for.
    if (item)
      throw new Fail(
        `path ${q}: ${unsupported} is a Vault Enterprise feature and is not supported`,
        item.pos,
      );
  }
  const comment = fields.get('comment');
  if (comment && comment.value.type !== 'String')
    throw new Fail(`path ${q}: comment must be a string`, comment.pos);

  let path = key.startsWith('/') ? key.slice(1) : key;
  path = namespace + path;
  if (path.includes('+*'))
    throw new Fail(`path ${JSON.stringify(path)}: invalid use of wildcards ('+*' is forbidden)`, entry.pos);

  let capabilities: string[] = [];
  const policyField = fields.get('policy');
  const capsField = fields.get('capabilities');
  if (capsField) capabilities = stringList(capsField.value, `path ${q}: capabilities`);
  if (policyField) {
    const legacy = policyField.value.type === 'String' ? policyField.value.value : undefined;
    const mapped = legacy === undefined ? undefined : LEGACY_POLICIES.get(legacy);
    if (!mapped) {
      const shown = legacy ?? JSON.stringify(expressionToValue(policyField.value));
      throw new Fail(`path ${q}: invalid policy ${JSON.stringify(shown)}`, policyField.pos);
    }
    capabilities = mapped[0] === 'deny' ? ['deny'] : [...capabilities, ...mapped];
  }

  const base = { path: key, templated: template.templated, line: entry.pos.line, column: entry.pos.column };
  let bitmap = 0;
  for (const cap of capabilities) {
    if (cap === 'deny') {
      // Vault stops here: a denying stanza keeps nothing else, not even its other settings.
      return { ...base, capabilities: ['deny'], permissions: emptyPermissions(CAP.deny) };
    }
    if (!isCapability(cap))
      throw new Fail(`path ${q}: invalid capability ${JSON.stringify(cap)}`, capsField?.pos);
    bitmap |= CAP[cap];
  }

  const permissions: PathPermissions = {
    ...emptyPermissions(bitmap),
    allowedParameters: parameterMap(fields.get('allowed_parameters'), path, 'allowed_parameters'),
    deniedParameters: parameterMap(fields.get('denied_parameters'), path, 'denied_parameters'),
    minWrappingTtl: wrappingTtl(fields.get('min_wrapping_ttl'), 'min_wrapping_ttl'),
    maxWrappingTtl: wrappingTtl(fields.get('max_wrapping_ttl'), 'max_wrapping_ttl'),
  };
  if (
    permissions.minWrappingTtl !== 0 &&
    permissions.maxWrappingTtl !== 0 &&
    permissions.maxWrappingTtl < permissions.minWrappingTtl
  ) {
    throw new Fail(
      'max_wrapping_ttl cannot be less than min_wrapping_ttl',
      fields.get('max_wrapping_ttl')?.pos,
    );
  }
  const required = fields.get('required_parameters');
  if (required) {
    const names = stringList(required.value, `path ${q}: required_parameters`);
    for (const n of names) {
      if (n.includes('*')) {
        throw new Fail(
          `path ${JSON.stringify(path)}: required_parameters: parameter key ${JSON.stringify(n)}: wildcard is not permitted here`,
          required.pos,
        );
      }
    }
    permissions.requiredParameters = names;
  }
  const events = fields.get('subscribe_event_types');
  if (events) permissions.subscribeEventTypes = stringList(events.value, `path ${q}: subscribe_event_types`);

  const names = (Object.keys(CAP) as Capability[]).filter((c) => bitmap & CAP[c]);
  return { ...base, capabilities: names, permissions };
}

function emptyPermissions(bitmap: number): PathPermissions {
  return { bitmap, minWrappingTtl: 0, maxWrappingTtl: 0, requiredParameters: [], subscribeEventTypes: [] };
}

interface Field {
  value: HclExpression;
  pos: Position;
}

/** One entry per key; a block without labels (`allowed_parameters { ... }`) counts as an object. */
function fieldMap(body: HclBody, pathKey: string): Map<string, Field> {
  const map = new Map<string, Field>();
  for (const item of body.items) {
    const q = JSON.stringify(pathKey);
    if (map.has(item.key)) {
      throw new Fail(
        `path ${q}: duplicate key ${JSON.stringify(item.key)} on line ${item.pos.line}`,
        item.pos,
      );
    }
    if (item.type === 'Attribute') {
      map.set(item.key, { value: item.value, pos: item.pos });
    } else if (item.labels.length === 0) {
      map.set(item.key, { value: { type: 'Object', body: item.body, pos: item.pos }, pos: item.pos });
    } else {
      throw new Fail(`path ${q}: ${item.key} must be an attribute, not a labelled block`, item.pos);
    }
  }
  return map;
}

/** A list of strings; a single string is accepted as a one-element list, as HCL v1 decoding does. */
function stringList(expr: HclExpression, what: string): string[] {
  if (expr.type === 'String') return [expr.value];
  if (expr.type === 'List') {
    return expr.items.map((item) => {
      if (item.type !== 'String') throw new Fail(`${what} must be a list of strings`, item.pos);
      return item.value;
    });
  }
  throw new Fail(`${what} must be a list of strings`, expr.pos);
}

function parameterMap(
  field: Field | undefined,
  path: string,
  what: string,
): Map<string, unknown[]> | undefined {
  if (!field) return undefined;
  const where = `path ${JSON.stringify(path)}: ${what}`;
  if (field.value.type !== 'Object')
    throw new Fail(`${where} must be a map of parameter names to lists of values`, field.pos);
  const map = new Map<string, unknown[]>();
  for (const item of field.value.body.items) {
    const k = item.key;
    if (k.startsWith('/')) {
      // Newer Vault reads "/a/b" as a JSON pointer into nested request data; without that
      // support such a key would silently never match, which for denied_parameters is unsafe.
      throw new Fail(
        `${where}: parameter key ${JSON.stringify(k)}: JSON pointer parameter keys are not supported`,
        item.pos,
      );
    }
    if (k.includes('*') && k !== '*') {
      throw new Fail(
        `${where}: parameter key ${JSON.stringify(k)} cannot contain non-tail wildcards`,
        item.pos,
      );
    }
    if (item.type !== 'Attribute' || item.value.type !== 'List') {
      throw new Fail(
        `${where}: the values of ${JSON.stringify(k)} must be a list ([] for any value)`,
        item.pos,
      );
    }
    map.set(k.toLowerCase(), item.value.items.map(expressionToValue));
  }
  return map;
}

function wrappingTtl(field: Field | undefined, what: string): number {
  if (!field) return 0;
  const v = field.value;
  if (v.type !== 'String' && v.type !== 'Number') {
    throw new Fail(`error parsing ${what}: could not parse duration from input`, field.pos);
  }
  try {
    return Number(parseDurationNanos(v.value)) / 1e9;
  } catch (e) {
    throw new Fail(`error parsing ${what}: ${(e as Error).message}`, field.pos);
  }
}
