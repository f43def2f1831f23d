import { randomInt } from 'node:crypto';

/**
 * Names of what cloud-b creates: IAM user names and session names (Vault's default
 * username_template, with the random suffix kept whole) and federation token names.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const IAM_NAME_LIMIT = 64;
const STS_NAME_LIMIT = 32;
const USER_RANDOM = 12;
export const TRUNCATED_NAME_WARNING =
  'the calling token display name/IAM policy name were truncated to fit into IAM username length limits';
export const TRUNCATED_SESSION_WARNING =
  'the role session name was truncated to 64 characters to fit within IAM session name length limits';

function random(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** IAM names allow letters, digits and +=,.@_- only (normalizeDisplayName). */
export const normalizeName = (text: string): string => text.replace(/[^a-zA-Z0-9+=,.@_-]/g, '_');

/**
 * An IAM user (or generated session) name of at most 64 characters:
 * `vault-<display name>-<role>-<unix time>-<random>`; the display name and role are cut (with a
 * warning) so that the time and the random suffix always fit.
 */
export function iamUserName(
  displayName: string,
  roleName: string,
  now: Date,
): { name: string; warning?: string } {
  const tail = `-${Math.floor(now.getTime() / 1000)}-${random(USER_RANDOM)}`;
  const room = IAM_NAME_LIMIT - 'vault-'.length - tail.length;
  const mid = normalizeName(`${displayName}-${roleName}`);
  const cut = mid.length > room;
  const name = `vault-${cut ? mid.slice(0, room) : mid}${tail}`;
  return cut ? { name, warning: TRUNCATED_NAME_WARNING } : { name };
}

/** A federation token's name (2 to 32 characters): `vault-<unix time>-<random>`. */
export function federationName(now: Date): string {
  return `vault-${Math.floor(now.getTime() / 1000)}-${random(STS_NAME_LIMIT)}`.slice(0, STS_NAME_LIMIT);
}

/** A session name asked for: normalised and cut to 64 characters (with a warning). */
export function sessionName(asked: string): { name: string; warning?: string } {
  const name = normalizeName(asked);
  return name.length > IAM_NAME_LIMIT
    ? { name: name.slice(0, IAM_NAME_LIMIT), warning: TRUNCATED_SESSION_WARNING }
    : { name };
}
