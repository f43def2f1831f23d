import type { SentinelEnforcementLevel } from '@coffer/contracts';
import type { SentinelResult } from '@coffer/sentinel';

/** One governing policy's result for a request. */
export interface PolicyOutcome {
  kind: 'rgp' | 'egp';
  name: string;
  level: SentinelEnforcementLevel;
  result: SentinelResult;
}

export interface Verdict {
  /** one text per policy that denies the request (empty: allowed) */
  denials: string[];
  /** advisory failures and overridden soft-mandatory failures: logged, audited, answered as warnings */
  warnings: string[];
}

/** EGP paths: "*" every path, "prefix*" a glob, otherwise the path itself (a trailing "/" aside). */
export function egpPathMatches(egpPath: string, requestPath: string): boolean {
  if (egpPath === '*') return true;
  const path = requestPath.replace(/^\/+/, '');
  if (egpPath.endsWith('*')) return path.startsWith(egpPath.slice(0, -1));
  return path.replace(/\/+$/, '') === egpPath.replace(/\/+$/, '');
}

/** Vault's trace of a denied Sentinel policy: the policy, the error if any, and the rules that failed. */
export function denialText(o: PolicyOutcome): string {
  const id = `root/${o.name}`;
  const rules = o.result.rules
    .filter((r) => r.value !== true)
    .map((r) => `Rule "${r.name}" (${id}:${r.pos.line}:${r.pos.column}) = ${String(r.value)}`);
  return [
    `${o.kind} standard policy "${id}" evaluation resulted in denial.`,
    '',
    'The specific error was:',
    o.result.error ?? '<nil>',
    '',
    `A trace of the execution for policy "${id}" is available:`,
    '',
    'Result: false',
    '',
    'Description: <none>',
    '',
    ...(rules.length > 0 ? rules : ['Rule "main" = false']),
  ].join('\n');
}

/**
 * Vault's enforcement levels: every applicable policy runs; a failed hard-mandatory policy
 * denies; a failed soft-mandatory one denies unless the request asked for an override and may
 * have it; a failed advisory one only warns. A runtime error is a failure.
 */
export function decideVerdict(
  outcomes: readonly PolicyOutcome[],
  override: { requested: boolean; allowed: boolean },
): Verdict {
  const denials: string[] = [];
  const warnings: string[] = [];
  for (const o of outcomes) {
    if (o.result.passed) continue;
    const label = `${o.kind} "${o.name}"`;
    if (o.level === 'advisory') {
      warnings.push(`advisory ${label} failed${o.result.error ? `: ${o.result.error}` : ''}`);
    } else if (o.level === 'soft-mandatory' && override.requested && override.allowed) {
      warnings.push(`soft-mandatory ${label} failed and was overridden`);
    } else if (o.level === 'soft-mandatory') {
      denials.push(
        `${denialText(o)}\n\nThis soft-mandatory policy may be overridden: send X-Service-Policy-Override: true with a token that has sudo on the path.`,
      );
    } else {
      denials.push(denialText(o));
    }
  }
  return { denials, warnings };
}
