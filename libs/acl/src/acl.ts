import type { EntityFacts, Operation } from '@coffer/contracts';
import { CAP, VISIBLE_BITS, capabilityList, resultantCapabilityList } from './capabilities';
import { parametersAllowed } from './parameters';
import { patternInfo } from './pattern';
import { ROOT_POLICY_NAME, type Policy } from './policy.types';
import { RuleIndex, type MergedPermissions, type RuleEntry } from './rule-index';
import { populateTemplate } from './templating';

export interface CompileAclOptions {
  /** the caller holds the root policy: everything is allowed */
  root?: boolean;
  /** identity facts for templated policy paths; without them templated paths are dropped */
  entity?: EntityFacts | null;
  /** clock for {{time.now}} templates */
  now?: Date;
}

export interface AclRequest {
  /** full request path including the namespace prefix, without "/v1/" ("ns1/secret/data/foo") */
  path: string;
  operation: Operation;
  /** request data (JSON body or query parameters) for parameter constraints */
  params?: Readonly<Record<string, unknown>>;
  /** requested response-wrapping TTL in seconds, if the request asks for wrapping */
  wrapTtl?: number;
}

export type AclDeniedReason = 'capability' | 'parameters' | 'wrapping';

export interface AclResult {
  allowed: boolean;
  /** capabilities of the rule that applied, sorted; ["deny"] when none; ["root"] for root */
  capabilities: string[];
  /** the rule grants sudo (needed on root-protected paths); false when it denies */
  sudo: boolean;
  root: boolean;
  deniedReason?: AclDeniedReason;
}

export interface ResultantAclPath {
  capabilities: string[];
  min_wrapping_ttl?: number;
  max_wrapping_ttl?: number;
  allowed_parameters?: Record<string, unknown[]>;
  denied_parameters?: Record<string, unknown[]>;
  required_parameters?: string[];
}

/** The body of sys/internal/ui/resultant-acl. */
export interface ResultantAcl {
  root: boolean;
  exact_paths?: Record<string, ResultantAclPath>;
  glob_paths?: Record<string, ResultantAclPath>;
}

const PARAMETER_OPERATIONS: ReadonlySet<Operation> = new Set(['read', 'create', 'update', 'patch']);
const ROOT_RESULT: AclResult = Object.freeze({
  allowed: true,
  capabilities: ['root'],
  sudo: true,
  root: true,
});

/**
 * A compiled ACL (Vault's ACL): immutable, cheap to query, meant to be cached by callers per
 * token (policy set + entity). Exact rules are one map lookup; globs and segment wildcards use
 * the index structures of RuleIndex.
 */
export class Acl {
  private constructor(
    readonly root: boolean,
    private readonly index: RuleIndex,
  ) {}

  /** @internal use compileAcl */
  static build(root: boolean, index: RuleIndex): Acl {
    return new Acl(root, index);
  }

  allowOperation(req: AclRequest): AclResult {
    if (this.root) return { ...ROOT_RESULT, capabilities: ['root'] };
    const entry = this.lookup(req.path, req.operation);
    if (!entry)
      return { allowed: false, capabilities: ['deny'], sudo: false, root: false, deniedReason: 'capability' };
    const perms = entry.perms;
    const base = {
      capabilities: capabilityList(perms.bitmap),
      sudo: (perms.bitmap & CAP.sudo) !== 0,
      root: false,
    };
    if (!(perms.bitmap & CAP[req.operation])) return { ...base, allowed: false, deniedReason: 'capability' };
    if (!wrappingAllowed(perms, req.wrapTtl)) return { ...base, allowed: false, deniedReason: 'wrapping' };
    if (PARAMETER_OPERATIONS.has(req.operation) && !parametersAllowed(perms, req.params ?? {})) {
      return { ...base, allowed: false, deniedReason: 'parameters' };
    }
    return { ...base, allowed: true };
  }

  /** Like Vault's sys/capabilities: sorted names, ["deny"] when nothing applies, ["root"] for root. */
  capabilities(path: string): string[] {
    if (this.root) return ['root'];
    const entry = this.lookup(path, 'list');
    return entry ? capabilityList(entry.perms.bitmap) : ['deny'];
  }

  /** The rule that applies to a path (LIST semantics), for callers needing wrapping TTLs etc. */
  permissions(path: string, operation: Operation = 'list'): Readonly<MergedPermissions> | undefined {
    return this.root ? undefined : this.lookup(path, operation)?.perms;
  }

  /**
   * Vault's hasMountAccess: whether the caller can reach anything under a mount path
   * ("secret/"), used to filter mount listings.
   */
  hasMountAccess(mountPath: string): boolean {
    if (this.root) return true;
    const mount = stripLeadingSlashes(mountPath);
    if (!this.capabilities(mount).includes('deny')) return true;
    const visible = (e: RuleEntry): boolean =>
      !(e.perms.bitmap & CAP.deny) && (e.perms.bitmap & VISIBLE_BITS) !== 0;
    for (const [path, e] of this.index.exact) if (path.startsWith(mount) && visible(e)) return true;
    for (const [path, e] of this.index.prefix) if (path.startsWith(mount) && visible(e)) return true;
    const parts = mount.split('/');
    const depth = mount.endsWith('/') ? parts.length - 1 : parts.length;
    for (const e of this.index.segmentRules()) {
      if (e.perms.bitmap & CAP.deny || e.perms.bitmap === 0) continue;
      const segs = e.info.path.split('/');
      if (segs.length < depth) continue;
      const reaches = parts.slice(0, depth).every((part, i) => {
        const seg = segs[i] ?? '';
        return (
          seg === '+' || seg === part || (e.info.isPrefix && i === segs.length - 1 && part.startsWith(seg))
        );
      });
      if (reaches) return true;
    }
    return false;
  }

  /** sys/internal/ui/resultant-acl: exact and glob rules with their merged settings. */
  resultant(): ResultantAcl {
    if (this.root) return { root: true };
    // Object.fromEntries defines own properties: a rule for the path "__proto__" stays a rule.
    const render = (entries: Map<string, RuleEntry>): Record<string, ResultantAclPath> =>
      Object.fromEntries(
        [...entries.keys()].sort().map((key) => {
          const p = (entries.get(key) as RuleEntry).perms;
          const r: ResultantAclPath = { capabilities: resultantCapabilityList(p.bitmap) };
          if (p.minWrappingTtl) r.min_wrapping_ttl = Math.trunc(p.minWrappingTtl);
          if (p.maxWrappingTtl) r.max_wrapping_ttl = Math.trunc(p.maxWrappingTtl);
          if (p.allowedParameters?.size) r.allowed_parameters = Object.fromEntries(p.allowedParameters);
          if (p.deniedParameters?.size) r.denied_parameters = Object.fromEntries(p.deniedParameters);
          if (p.requiredParameters.length) r.required_parameters = [...p.requiredParameters];
          return [key, r];
        }),
      );
    return { root: false, exact_paths: render(this.index.exact), glob_paths: render(this.index.prefix) };
  }

  /** Vault's lookup order: exact, (LIST: exact without the trailing slash), then globs/wildcards. */
  private lookup(rawPath: string, operation: Operation): RuleEntry | undefined {
    const path = stripLeadingSlashes(rawPath);
    const exact = this.index.exact.get(path);
    if (exact) return exact;
    if (operation === 'list' && path.endsWith('/')) {
      const trimmed = path.slice(0, -1);
      return this.index.exact.get(trimmed) ?? this.index.nonExact(trimmed) ?? this.index.nonExact(path);
    }
    return this.index.nonExact(path);
  }
}

function wrappingAllowed(perms: MergedPermissions, wrapTtl: number | undefined): boolean {
  if (perms.maxWrappingTtl > 0 && (wrapTtl === undefined || wrapTtl > perms.maxWrappingTtl)) return false;
  if (perms.minWrappingTtl > 0 && (wrapTtl === undefined || wrapTtl < perms.minWrappingTtl)) return false;
  // Merging can produce min > max even though each stanza was checked when parsed.
  return !(
    perms.minWrappingTtl !== 0 &&
    perms.maxWrappingTtl !== 0 &&
    perms.maxWrappingTtl < perms.minWrappingTtl
  );
}

function stripLeadingSlashes(path: string): string {
  let i = 0;
  while (path[i] === '/') i++;
  return i ? path.slice(i) : path;
}

/**
 * Builds an ACL from parsed policies (Vault's NewACL): identity templates resolved against
 * `entity` (paths that cannot be resolved are dropped), the same pattern in several policies
 * merged (capabilities united, deny absorbing everything, parameters merged, lowest wrapping
 * TTLs). A policy named "root" (or `root: true`) gives the root ACL.
 */
export function compileAcl(
  policies: readonly (Policy | null | undefined)[],
  options: CompileAclOptions = {},
): Acl {
  const index = new RuleIndex();
  const present = policies.filter((p): p is Policy => !!p);
  if (options.root || present.some((p) => p.name === ROOT_POLICY_NAME)) return Acl.build(true, index);
  const now = options.now ?? new Date();
  for (const policy of present) {
    for (const rule of policy.paths) {
      let key = rule.path;
      if (rule.templated) {
        const resolved = populateTemplate(key, { entity: options.entity, now });
        if (!resolved.ok) continue;
        key = resolved.value;
      }
      const full = policy.namespace + (key.startsWith('/') ? key.slice(1) : key);
      if (full.includes('+*')) continue;
      index.add(patternInfo(full), rule.permissions);
    }
  }
  return Acl.build(false, index);
}
