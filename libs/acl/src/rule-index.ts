import { CAP } from './capabilities';
import { comparePriority, type PatternInfo } from './pattern';
import type { PathPermissions } from './policy.types';

/** Merged permissions of one distinct pattern (mutable while the ACL is being built). */
export interface MergedPermissions {
  bitmap: number;
  minWrappingTtl: number;
  maxWrappingTtl: number;
  allowedParameters?: Map<string, unknown[]>;
  deniedParameters?: Map<string, unknown[]>;
  requiredParameters: string[];
  subscribeEventTypes: string[];
}

export interface RuleEntry {
  info: PatternInfo;
  perms: MergedPermissions;
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  plus?: TrieNode;
  /** patterns ending exactly at this depth */
  exact: RuleEntry[];
  /** prefix patterns whose last (globbed) segment starts at this depth */
  tails: { tail: string; entry: RuleEntry }[];
}

const newNode = (): TrieNode => ({ literal: new Map(), exact: [], tails: [] });
const cloneMap = (
  m: ReadonlyMap<string, readonly unknown[]> | undefined,
): Map<string, unknown[]> | undefined => (m ? new Map([...m].map(([k, v]) => [k, [...v]])) : undefined);

/**
 * The three rule sets of a Vault ACL: exact paths (map), prefix globs (map + the distinct prefix
 * lengths, longest first, so a lookup costs one map probe per distinct length) and segment
 * wildcard patterns (a trie over path segments, so only patterns that can match are visited).
 */
export class RuleIndex {
  readonly exact = new Map<string, RuleEntry>();
  readonly prefix = new Map<string, RuleEntry>();
  readonly segments = new Map<string, RuleEntry>();
  private readonly prefixLengthSet = new Set<number>();
  /** distinct prefix lengths, longest first; rebuilt lazily after additions */
  private prefixLengths: number[] | undefined = [];
  private readonly trie: TrieNode = newNode();

  add(info: PatternInfo, incoming: PathPermissions): void {
    const table = info.kind === 'exact' ? this.exact : info.kind === 'prefix' ? this.prefix : this.segments;
    const key = info.kind === 'segments' ? info.full : info.path;
    const existing = table.get(key);
    if (existing) {
      mergePermissions(existing.perms, incoming);
      return;
    }
    const entry: RuleEntry = {
      info,
      perms: {
        bitmap: incoming.bitmap,
        minWrappingTtl: incoming.minWrappingTtl,
        maxWrappingTtl: incoming.maxWrappingTtl,
        allowedParameters: cloneMap(incoming.allowedParameters),
        deniedParameters: cloneMap(incoming.deniedParameters),
        requiredParameters: [...incoming.requiredParameters],
        subscribeEventTypes: [...incoming.subscribeEventTypes],
      },
    };
    table.set(key, entry);
    if (info.kind === 'prefix') {
      this.prefixLengthSet.add(info.path.length);
      this.prefixLengths = undefined;
    } else if (info.kind === 'segments') {
      this.insertSegments(entry);
    }
  }

  private insertSegments(entry: RuleEntry): void {
    const segs = entry.info.path.split('/');
    const walk = entry.info.isPrefix ? segs.slice(0, -1) : segs;
    let node = this.trie;
    for (const seg of walk) {
      if (seg === '+') {
        node.plus ??= newNode();
        node = node.plus;
      } else {
        let next = node.literal.get(seg);
        if (!next) {
          next = newNode();
          node.literal.set(seg, next);
        }
        node = next;
      }
    }
    if (entry.info.isPrefix) node.tails.push({ tail: segs[segs.length - 1] ?? '', entry });
    else node.exact.push(entry);
  }

  /** Vault's CheckAllowedFromNonExactPaths: the highest-priority matching glob or wildcard rule. */
  nonExact(path: string): RuleEntry | undefined {
    let best: RuleEntry | undefined;
    this.prefixLengths ??= [...this.prefixLengthSet].sort((a, b) => b - a);
    for (const len of this.prefixLengths) {
      if (len > path.length) continue;
      const hit = this.prefix.get(path.slice(0, len));
      if (hit) {
        best = hit;
        break;
      }
    }
    if (this.segments.size === 0) return best;
    const parts = path.split('/');
    const visit = (node: TrieNode, i: number): void => {
      if (i === parts.length) {
        for (const e of node.exact) if (!best || comparePriority(e.info, best.info) > 0) best = e;
        return;
      }
      const part = parts[i] ?? '';
      for (const { tail, entry } of node.tails) {
        if (part.startsWith(tail) && (!best || comparePriority(entry.info, best.info) > 0)) best = entry;
      }
      const literal = node.literal.get(part);
      if (literal) visit(literal, i + 1);
      if (node.plus) visit(node.plus, i + 1);
    };
    visit(this.trie, 0);
    return best;
  }

  /** Every segment-wildcard rule (for mount visibility checks, which are not on the hot path). */
  segmentRules(): IterableIterator<RuleEntry> {
    return this.segments.values();
  }
}

/** Same pattern in several stanzas or policies: Vault's NewACL merge rules. */
function mergePermissions(existing: MergedPermissions, incoming: PathPermissions): void {
  if (existing.bitmap & CAP.deny) return;
  if (incoming.bitmap & CAP.deny) {
    existing.bitmap = CAP.deny;
    existing.allowedParameters = undefined;
    existing.deniedParameters = undefined;
    return;
  }
  existing.bitmap |= incoming.bitmap;
  // The lowest non-zero wrapping TTLs win.
  if (
    incoming.maxWrappingTtl > 0 &&
    (existing.maxWrappingTtl === 0 || incoming.maxWrappingTtl < existing.maxWrappingTtl)
  ) {
    existing.maxWrappingTtl = incoming.maxWrappingTtl;
  }
  if (
    incoming.minWrappingTtl > 0 &&
    (existing.minWrappingTtl === 0 || incoming.minWrappingTtl < existing.minWrappingTtl)
  ) {
    existing.minWrappingTtl = incoming.minWrappingTtl;
  }
  existing.allowedParameters = mergeParameters(existing.allowedParameters, incoming.allowedParameters);
  existing.deniedParameters = mergeParameters(existing.deniedParameters, incoming.deniedParameters);
  for (const p of incoming.requiredParameters) {
    if (!existing.requiredParameters.includes(p)) existing.requiredParameters.push(p);
  }
  if (incoming.subscribeEventTypes.length > 0) {
    existing.subscribeEventTypes = [
      ...new Set([...existing.subscribeEventTypes, ...incoming.subscribeEventTypes]),
    ];
  }
}

/** An empty list (any value) absorbs the other side; otherwise the value lists are concatenated. */
function mergeParameters(
  existing: Map<string, unknown[]> | undefined,
  incoming: ReadonlyMap<string, readonly unknown[]> | undefined,
): Map<string, unknown[]> | undefined {
  if (!incoming || incoming.size === 0) return existing;
  if (!existing) return cloneMap(incoming);
  for (const [key, values] of incoming) {
    const current = existing.get(key);
    if (values.length === 0 || (current !== undefined && current.length === 0)) existing.set(key, []);
    else existing.set(key, [...values, ...(current ?? [])]);
  }
  return existing;
}
