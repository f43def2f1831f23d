import {
  invalidRequest,
  SENTINEL_ENFORCEMENT_LEVELS,
  type SentinelEnforcementLevel,
  type SysSentinelPolicyBody,
} from '@coffer/contracts';
import { compileSentinel, isSentinelParseError } from '@coffer/sentinel';
import type { SentinelPolicyEvent } from './sentinel-policy.events';
import type { SentinelPolicyKind } from './sentinel-policy.table';

/**
 * Pure rules of RGP and EGP writes: names as ACL policies (trimmed, lower-cased), a policy that
 * parses (base64 accepted), one of the three enforcement levels, and for EGPs at least one path.
 */

export function normaliseSentinelName(name: string): string {
  return name.trim().toLowerCase();
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A base64 policy is decoded only when the decoded text parses (a plain policy is never mangled). */
export function decodeSentinelText(text: string): string {
  if (!STRICT_BASE64.test(text)) return text;
  try {
    const decoded = utf8.decode(Buffer.from(text, 'base64'));
    compileSentinel(decoded);
    return decoded;
  } catch {
    return text;
  }
}

/** EGP paths: trimmed, leading "/" dropped, empty entries ignored, duplicates removed; "*" alone or a "prefix*" glob. */
export function normaliseEgpPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of paths) {
    const path = raw.trim().replace(/^\/+/, '');
    if (path === '') continue;
    if (path.slice(0, -1).includes('*')) {
      throw invalidRequest(`invalid path ${JSON.stringify(raw)}: "*" is only allowed at the end`);
    }
    if (!out.includes(path)) out.push(path);
  }
  return out;
}

export function decideSentinelWrite(
  kind: SentinelPolicyKind,
  rawName: string,
  body: SysSentinelPolicyBody,
  /** the namespace of the request: the policy is stored as "<namespace><name>" */
  namespace = '',
): SentinelPolicyEvent {
  const name = normaliseSentinelName(rawName);
  if (name === '') throw invalidRequest('policy name must be provided in the URL');
  if (body.policy === '') throw invalidRequest("'policy' parameter not supplied or empty");
  const level = body.enforcement_level.trim().toLowerCase();
  if (level === '') throw invalidRequest('enforcement_level must be provided');
  if (!(SENTINEL_ENFORCEMENT_LEVELS as readonly string[]).includes(level)) {
    throw invalidRequest(
      `invalid enforcement level ${JSON.stringify(body.enforcement_level)}: must be advisory, soft-mandatory or hard-mandatory`,
    );
  }
  const paths = kind === 'egp' ? normaliseEgpPaths(body.paths) : [];
  if (kind === 'egp' && paths.length === 0) throw invalidRequest('paths must be provided for an EGP');
  const policy = decodeSentinelText(body.policy);
  try {
    compileSentinel(policy);
  } catch (error) {
    if (isSentinelParseError(error)) throw invalidRequest(`failed to parse policy: ${error.message}`);
    throw error;
  }
  return {
    type: 'SentinelPolicyWritten',
    data: {
      kind,
      name: namespace + name,
      policy,
      enforcement_level: level as SentinelEnforcementLevel,
      paths,
    },
  };
}

/** LIST egp's name_path_map: each path with whether it is a glob. */
export function egpPathEntries(paths: readonly string[]): { path: string; glob: boolean }[] {
  return paths.map((path) => ({ path, glob: path.endsWith('*') }));
}
