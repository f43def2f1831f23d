import { multiError, type RequestOf } from '@coffer/contracts';
import type { cloudB } from '@coffer/contracts/cloud-b';
import type { RoleEntry } from '../records/cloud-b-record.events';

/** Vault's role rules of the AWS engine (path_roles.go), pure. */

type RoleBody = RequestOf<typeof cloudB.roleWrite>['body'];

export const IAM_USER = 'iam_user';
export const ASSUMED_ROLE = 'assumed_role';
export const FEDERATION_TOKEN = 'federation_token';
const CREDENTIAL_TYPES = [IAM_USER, ASSUMED_ROLE, FEDERATION_TOKEN];
const USER_PATH = /^\/([\x21-\x7F]{0,510}\/)?$/;

export const EMPTY_ROLE: RoleEntry = {
  credential_types: [],
  role_arns: null,
  policy_arns: null,
  policy_document: '',
  iam_groups: null,
  iam_tags: null,
  default_sts_ttl: 0,
  max_sts_ttl: 0,
  user_path: '',
  permissions_boundary_arn: '',
  prohibit_flexible_cred_path: false,
  invalid_data: '',
};

/** Go's arn.Parse: "arn:partition:service:region:account:resource"; answers the error text or null. */
export function arnError(text: string): string | null {
  if (!text.startsWith('arn:')) return 'arn: invalid prefix';
  if (text.split(':').length < 6) return 'arn: not enough sections';
  return null;
}

/** The resource part of an ARN (after the fifth colon). */
export function arnResource(text: string): string {
  return text.split(':').slice(5).join(':');
}

/** json.Compact: the same document without insignificant white space, or null when it does not parse. */
export function compactJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

/** upgradeLegacyPolicyEntry: a role ARN, a policy ARN or a policy document; anything else is invalid_data. */
export function upgradeLegacyPolicy(entry: string): RoleEntry {
  const legacy = { ...EMPTY_ROLE, prohibit_flexible_cred_path: true };
  if (entry.startsWith('arn:')) {
    if (arnError(entry)) return { ...EMPTY_ROLE, invalid_data: entry };
    const type = arnResource(entry).split('/')[0];
    if (type === 'role') return { ...legacy, credential_types: [ASSUMED_ROLE], role_arns: [entry] };
    if (type === 'policy') return { ...legacy, credential_types: [IAM_USER], policy_arns: [entry] };
    return { ...EMPTY_ROLE, invalid_data: entry };
  }
  const compacted = compactJson(entry);
  if (compacted === null) return { ...EMPTY_ROLE, invalid_data: entry };
  return { ...legacy, credential_types: [IAM_USER, FEDERATION_TOKEN], policy_document: compacted };
}

const MODERN_FIELDS = [
  'credential_type',
  'role_arns',
  'policy_arns',
  'policy_document',
  'default_sts_ttl',
  'max_sts_ttl',
  'user_path',
  'permissions_boundary_arn',
] as const;

/**
 * The role after a write (Vault's pathRolesWrite): fields sent replace the stored ones, the rest
 * is kept; the legacy `arn` / `policy` replace the whole role and exclude the other fields.
 * Answers the role or the error text (400).
 */
export function writeRole(existing: RoleEntry | undefined, body: RoleBody): RoleEntry | string {
  let role: RoleEntry = existing && existing.invalid_data === '' ? { ...existing } : { ...EMPTY_ROLE };
  let legacy = body.arn ?? '';
  if (body.policy !== undefined && body.policy !== '') {
    if (legacy !== '') return 'cannot supply both policy and arn parameters';
    legacy = body.policy;
  }
  if (legacy !== '') {
    for (const field of MODERN_FIELDS)
      if (body[field] !== undefined)
        return field === 'credential_type'
          ? 'cannot supply deprecated role or policy parameters with an explicit credential_type'
          : `cannot supply deprecated role or policy parameters with ${field}`;
    role = upgradeLegacyPolicy(legacy);
    if (role.invalid_data !== '')
      return `unable to parse supplied data: ${JSON.stringify(role.invalid_data)}`;
  } else {
    if (body.credential_type !== undefined) role.credential_types = [body.credential_type];
    if (body.role_arns !== undefined) role.role_arns = body.role_arns;
    if (body.policy_arns !== undefined) role.policy_arns = body.policy_arns;
    if (body.policy_document !== undefined) {
      const compacted = body.policy_document === '' ? '' : compactJson(body.policy_document);
      if (compacted === null) return `cannot parse policy document: ${JSON.stringify(body.policy_document)}`;
      role.policy_document = compacted;
    }
    if (body.default_sts_ttl !== undefined) role.default_sts_ttl = body.default_sts_ttl;
    if (body.max_sts_ttl !== undefined) role.max_sts_ttl = body.max_sts_ttl;
    if (body.user_path !== undefined) role.user_path = body.user_path;
    if (body.permissions_boundary_arn !== undefined)
      role.permissions_boundary_arn = body.permissions_boundary_arn;
  }
  if (body.iam_groups !== undefined) role.iam_groups = body.iam_groups;
  if (body.iam_tags !== undefined) role.iam_tags = body.iam_tags;
  const errors = validateRole(role);
  if (errors.length > 0)
    return `error(s) validating supplied role data: ${JSON.stringify(multiError(...errors))}`;
  return role;
}

/** awsRoleEntry.validate, plus the contract's required fields per credential type. */
export function validateRole(role: RoleEntry): string[] {
  const errors: string[] = [];
  const types = role.credential_types;
  const has = (t: string) => types.includes(t);
  if (types.length === 0) errors.push('did not supply credential_type');
  for (const t of types) if (!CREDENTIAL_TYPES.includes(t)) errors.push(`unrecognized credential type: ${t}`);
  const sts = has(ASSUMED_ROLE) || has(FEDERATION_TOKEN);
  if (role.default_sts_ttl !== 0 && !sts)
    errors.push(
      `default_sts_ttl parameter only valid for ${ASSUMED_ROLE} and ${FEDERATION_TOKEN} credential types`,
    );
  if (role.max_sts_ttl !== 0 && !sts)
    errors.push(
      `max_sts_ttl parameter only valid for ${ASSUMED_ROLE} and ${FEDERATION_TOKEN} credential types`,
    );
  if (role.max_sts_ttl > 0 && role.default_sts_ttl > 0 && role.default_sts_ttl > role.max_sts_ttl)
    errors.push('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value');
  if (role.user_path !== '') {
    if (!has(IAM_USER)) errors.push(`user_path parameter only valid for ${IAM_USER} credential type`);
    if (!USER_PATH.test(role.user_path))
      errors.push(`The specified value for user_path is invalid. It must match "${USER_PATH.source}" regexp`);
  }
  if (role.permissions_boundary_arn !== '') {
    if (!has(IAM_USER))
      errors.push(`cannot supply permissions_boundary_arn when credential_type isn't ${IAM_USER}`);
    const bad = arnError(role.permissions_boundary_arn);
    if (bad)
      errors.push(
        `unable to parse permissions_boundary_arn ${JSON.stringify(role.permissions_boundary_arn)}: ${bad}`,
      );
  }
  if ((role.role_arns?.length ?? 0) > 0 && !has(ASSUMED_ROLE))
    errors.push(`cannot supply role_arns when credential_type isn't ${ASSUMED_ROLE}`);
  if (has(ASSUMED_ROLE) && (role.role_arns?.length ?? 0) === 0)
    errors.push(`role_arns is required for the ${ASSUMED_ROLE} credential type`);
  const policies = (role.policy_arns?.length ?? 0) > 0 || role.policy_document !== '';
  for (const t of [IAM_USER, FEDERATION_TOKEN])
    if (has(t) && !policies)
      errors.push(`at least one of policy_arns or policy_document is required for the ${t} credential type`);
  return errors;
}

/** What a role read shows (awsRoleEntry.toResponseData, with credential_types as an array too). */
export function roleView(role: RoleEntry) {
  return {
    credential_type: role.credential_types.join(','),
    credential_types: role.credential_types,
    policy_arns: role.policy_arns,
    role_arns: role.role_arns,
    policy_document: role.policy_document,
    iam_groups: role.iam_groups,
    iam_tags: role.iam_tags,
    default_sts_ttl: role.default_sts_ttl,
    max_sts_ttl: role.max_sts_ttl,
    user_path: role.user_path,
    permissions_boundary_arn: role.permissions_boundary_arn,
    ...(role.invalid_data !== '' ? { invalid_data: role.invalid_data } : {}),
  };
}

export type CredsPath = 'creds' | 'sts';

/**
 * Which credential a creds/ or sts/ request gets (pathCredsRead): the role's one type, or for a
 * legacy policy role iam_user on creds/ and federation_token on sts/. Answers the type or the
 * error text (400).
 */
export function credentialTypeFor(role: RoleEntry, roleName: string, path: CredsPath): string {
  const types = role.credential_types;
  let type: string;
  if (types.length === 1 && types[0] !== undefined) type = types[0];
  else if (types.length > 1) type = path === 'creds' ? IAM_USER : FEDERATION_TOKEN;
  else throw new RoleRefusal(`did not find a valid credential_type for role ${JSON.stringify(roleName)}`);
  if (role.prohibit_flexible_cred_path) {
    if (type === IAM_USER && path === 'sts')
      throw new RoleRefusal(
        `attempted to retrieve ${IAM_USER} credentials through the sts path; this is not allowed for legacy roles`,
      );
    if (type !== IAM_USER && path === 'creds')
      throw new RoleRefusal(
        `attempted to retrieve ${type} credentials through the creds path; this is not allowed for legacy roles`,
      );
  }
  return type;
}

/** A creds request the role refuses (400, Vault's text). */
export class RoleRefusal extends Error {}

/** The role ARN to assume: the one asked for (must be allowed), else the role's only one. */
export function roleArnFor(role: RoleEntry, roleName: string, asked: string): string {
  const allowed = role.role_arns ?? [];
  if (asked === '') {
    if (allowed.length !== 1 || allowed[0] === undefined)
      throw new RoleRefusal('did not supply a role_arn parameter and unable to determine one');
    return allowed[0];
  }
  if (!allowed.includes(asked))
    throw new RoleRefusal(
      `role_arn ${JSON.stringify(asked)} not in allowed role arns for Vault role ${JSON.stringify(roleName)}`,
    );
  return asked;
}

/**
 * STS lifetime: the ttl asked for, else the role's default_sts_ttl, else 3600; capped by
 * max_sts_ttl, else the mount's (system's) max lease TTL.
 */
export function stsTtl(role: RoleEntry, asked: number | undefined, systemMax: number): number {
  let ttl = asked ?? (role.default_sts_ttl > 0 ? role.default_sts_ttl : 3600);
  const max = role.max_sts_ttl > 0 ? role.max_sts_ttl : systemMax;
  if (max > 0 && ttl > max) ttl = max;
  return ttl;
}
