import { Injectable } from '@nestjs/common';
import { compileAcl, parsePolicy, type Acl, type Policy } from '@coffer/acl';

/** parsed policy versions kept in memory (a version's text never changes once logged) */
export const VERSIONS_KEPT = 10_000;
/** parsed texts kept in memory: versions whose text is the same share one parse */
const TEXTS_KEPT = 10_000;

/**
 * A policy version, parsed, with its ACL on its own compiled once (kept unless it has templated
 * paths, which resolve against the time of the question).
 */
export interface ParsedPolicy {
  policy: Policy;
  acl: Acl | undefined;
}

export const aclOf = (p: ParsedPolicy): Acl => p.acl ?? compileAcl([p.policy]);

/** A bounded map that forgets the entry used least recently. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.size) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }
}

/**
 * Parsed policy versions for the who-could questions: by the WAL of the version (the event that
 * wrote it: one stream, one text), and below that by text, so a version whose text an earlier one
 * already had (a policy written again unchanged, the same text in several namespaces) costs no
 * parse. Parsing is what a question over thousands of policies spends its time on when they are
 * new to it; the history indexer fills it in the background (HistoryPolicyWarmer) so they are not.
 * One per process, shared by the questions and the warmer.
 */
@Injectable()
export class HistoryPolicyCache {
  private readonly versions = new Lru<ParsedPolicy | null>(VERSIONS_KEPT);
  private readonly texts = new Lru<ParsedPolicy | null>(TEXTS_KEPT);

  /** Whether the version written by event `wal` is parsed already (its recency left as is). */
  has(wal: number): boolean {
    return this.versions.has(String(wal));
  }

  /** The parsed version, undefined when not parsed yet, null when it did not parse. */
  get(wal: number): ParsedPolicy | null | undefined {
    return this.versions.get(String(wal));
  }

  /**
   * Parses (or finds by its text) the version written by event `wal`, and keeps it. A stored
   * version is never root (root has no stored text), so the name it is read under does not change
   * its parse.
   */
  parse(name: string, wal: number, text: string): ParsedPolicy | null {
    const policy = this.parseText(name, text);
    this.versions.set(String(wal), policy);
    return policy;
  }

  /** A policy that does not parse contributes nothing, as it would have live. */
  parseText(key: string, text: string): ParsedPolicy | null {
    // the name counts only as root or not (compileAcl grants all to a policy named root)
    const textKey = `${isRootName(key) ? 'r' : '-'}\u0000${text}`;
    const hit = this.texts.get(textKey);
    if (hit !== undefined) return hit;
    const policy = parseOrNull(key, text);
    this.texts.set(textKey, policy);
    return policy;
  }
}

const isRootName = (key: string) => key.trim().toLowerCase() === 'root';

function parseOrNull(name: string, text: string): ParsedPolicy | null {
  try {
    const policy = parsePolicy(name, text);
    return { policy, acl: policy.paths.some((r) => r.templated) ? undefined : compileAcl([policy]) };
  } catch {
    return null;
  }
}
