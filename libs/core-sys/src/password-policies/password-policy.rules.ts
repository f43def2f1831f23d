import { randomBytes } from 'node:crypto';
import { hclToObject, parseHcl, type HclBlockEntry, type HclPlainObject } from '@coffer/hcl';

/**
 * Vault's password policies (internal/helper/random), pure: HCL with `length` and
 * `rule "charset" { charset = "...", min-chars = N }` blocks. A candidate of `length` characters
 * is drawn uniformly from the union of the charsets and kept when every rule's minimum holds.
 */
export interface PasswordPolicy {
  length: number;
  rules: Array<{ charset: string[]; minChars: number }>;
}

export const MIN_PASSWORD_LENGTH = 4;
export const MAX_PASSWORD_LENGTH = 100;
const MAX_CHARSET = 256;
const GENERATE_DEADLINE_MS = 1000;

export class PasswordPolicyError extends Error {}

/** The policy text as Vault takes it: HCL, or standard base64 of HCL. */
export function decodePolicyText(raw: string): string {
  if (raw.length > 0 && raw.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(raw))
    return Buffer.from(raw, 'base64').toString('utf8');
  return raw;
}

const isBlocks = (v: unknown): v is HclBlockEntry[] =>
  Array.isArray(v) && v.every((b) => typeof b === 'object' && b !== null && 'labels' in b && 'body' in b);

/** Parses a policy; throws PasswordPolicyError with Vault's wording. */
export function parsePasswordPolicy(text: string): PasswordPolicy {
  let doc: HclPlainObject;
  try {
    doc = hclToObject(parseHcl(text));
  } catch (error) {
    throw new PasswordPolicyError(
      `unable to decode: ${error instanceof Error ? error.message : 'invalid HCL'}`,
    );
  }
  const length = doc['length'];
  if (typeof length !== 'number' || !Number.isInteger(length))
    throw new PasswordPolicyError('failed to decode configuration: length must be an integer');
  const rawRules = doc['rule'] ?? [];
  if (!isBlocks(rawRules)) throw new PasswordPolicyError('unable to retrieve rules: rule must be a block');
  const rules = rawRules.map((block) => {
    const type = block.labels[0] ?? '';
    if (type !== 'charset')
      throw new PasswordPolicyError(`unable to parse rules: unrecognized rule type ${type}`);
    const charset = block.body['charset'];
    const minChars = block.body['min-chars'] ?? 0;
    if (typeof charset !== 'string')
      throw new PasswordPolicyError('unable to parse rule charset: charset must be a string');
    if (typeof minChars !== 'number' || !Number.isInteger(minChars))
      throw new PasswordPolicyError('unable to parse rule charset: min-chars must be an integer');
    return { charset: [...charset], minChars };
  });
  return { length, rules };
}

/** Vault's validateConfig: what makes a policy unable to generate anything. */
export function policyProblems(policy: PasswordPolicy): string[] {
  const problems: string[] = [];
  const minLength = policy.rules.reduce((sum, r) => sum + r.minChars, 0);
  if (policy.length <= 0) problems.push('length must be > 0');
  else if (policy.length < minLength)
    problems.push(
      `specified rules require at least ${minLength} characters but ${policy.length} is specified`,
    );
  const charset = unionCharset(policy);
  if (charset.length === 0) problems.push('no charset specified');
  else if (charset.length > MAX_CHARSET)
    problems.push(`charset is too long: limited to ${MAX_CHARSET - 1} characters`);
  else if (charset.some((c) => /\p{C}/u.test(c))) problems.push('non-printable character in charset');
  return problems;
}

function unionCharset(policy: PasswordPolicy): string[] {
  return [...new Set(policy.rules.flatMap((r) => r.charset))].sort();
}

/** Uniform draws by rejection sampling on random bytes (no modulo bias). */
function randomRunes(charset: readonly string[], length: number): string[] {
  const limit = Math.floor(MAX_CHARSET / charset.length) * charset.length;
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out.push(charset[byte % charset.length] as string);
      if (out.length === length) break;
    }
  }
  return out;
}

/** A password satisfying the policy; throws PasswordPolicyError when none was found in time. */
export function generateFromPolicy(policy: PasswordPolicy): string {
  const problems = policyProblems(policy);
  if (problems.length > 0) throw new PasswordPolicyError(problems.join('; '));
  const charset = unionCharset(policy);
  const deadline = Date.now() + GENERATE_DEADLINE_MS;
  while (Date.now() < deadline) {
    const candidate = randomRunes(charset, policy.length);
    const passes = policy.rules.every(
      (rule) => candidate.filter((c) => rule.charset.includes(c)).length >= rule.minChars,
    );
    if (passes) return candidate.join('');
  }
  throw new PasswordPolicyError('timed out generating string');
}

/** Vault's write-time checks: parse, length 4..100, and 10 trial generations. */
export function validatePolicyText(text: string): string | undefined {
  let policy: PasswordPolicy;
  try {
    policy = parsePasswordPolicy(text);
  } catch (error) {
    return `invalid password policy: ${error instanceof Error ? error.message : ''}`;
  }
  if (policy.length > MAX_PASSWORD_LENGTH || policy.length < MIN_PASSWORD_LENGTH)
    return `passwords must be between ${MIN_PASSWORD_LENGTH} and ${MAX_PASSWORD_LENGTH} characters`;
  if (policyProblems(policy).length > 0)
    return 'unable to generate password from provided policy in 1s: are the rules impossible?';
  let failed = 0;
  for (let i = 0; i < 10; i++) {
    try {
      generateFromPolicy(policy);
    } catch {
      failed++;
    }
  }
  if (failed === 10)
    return 'unable to generate password from provided policy in 1s: are the rules impossible?';
  if (failed > 0)
    return `failed to generate passwords ${failed} times out of 10 attempts in 1s - is the policy too restrictive?`;
  return undefined;
}
