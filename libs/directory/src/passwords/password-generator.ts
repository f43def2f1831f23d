import { randomInt } from 'node:crypto';

/**
 * Vault's deprecated password generation (vault-plugin-secrets-ad passwords.go): base62 random
 * text of `length`, behind the prefix `?@09AZ` (which meets directory complexity rules) or inside
 * a formatter's `{{PASSWORD}}`. At least 8 random characters: length ≥ 14 without a formatter.
 */
export const PASSWORD_PREFIX = '?@09AZ';
export const PASSWORD_FIELD = '{{PASSWORD}}';
export const DEFAULT_PASSWORD_LENGTH = 64;
const MIN_COMPLEX = 8;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface PasswordRules {
  length: number;
  formatter: string;
  password_policy: string;
}

const randomLength = (rules: PasswordRules): number =>
  rules.length - (rules.formatter.length - PASSWORD_FIELD.length);

/** Vault's validation text, or undefined when the rules can generate a password. */
export function passwordRulesProblem(rules: PasswordRules): string | undefined {
  if (rules.password_policy !== '' && (rules.length !== 0 || rules.formatter !== ''))
    return 'cannot set password_policy and either length or formatter';
  if (rules.password_policy !== '') return undefined;
  if (rules.formatter === '') {
    if (rules.length < PASSWORD_PREFIX.length + MIN_COMPLEX)
      return `it's not possible to generate a _secure_ password of length ${rules.length}, please boost length to ${MIN_COMPLEX + PASSWORD_PREFIX.length}, though Vault recommends higher`;
    return undefined;
  }
  if (randomLength(rules) < MIN_COMPLEX)
    return `since the desired length is ${rules.length}, it isn't possible to generate a sufficiently complex password - please increase desired length or remove characters from the formatter`;
  const fields = rules.formatter.split(PASSWORD_FIELD).length - 1;
  if (fields === 0) return `${rules.formatter} must contain password replacement field of ${PASSWORD_FIELD}`;
  if (fields > 1)
    return `${rules.formatter} must contain ONE password replacement field of ${PASSWORD_FIELD}`;
  return undefined;
}

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** A password by length/formatter (the rules must be valid and name no policy). */
export function generatePassword(rules: PasswordRules): string {
  if (rules.formatter !== '')
    return rules.formatter.replace(PASSWORD_FIELD, randomBase62(randomLength(rules)));
  return PASSWORD_PREFIX + randomBase62(rules.length - PASSWORD_PREFIX.length);
}
