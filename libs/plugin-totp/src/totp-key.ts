import { z } from 'zod';
import { DomainError, weakBool, weakDuration, weakInt, weakString } from '@coffer/contracts';
import { base32Decode, base32Encode, generateSecret, type TotpAlgorithm } from './totp-codes';

/** Vault's totp engine: a key and the rules of creating one (builtin/logical/totp/path_keys.go). */

export interface TotpKey {
  /** base32 secret */
  key: string;
  issuer: string;
  account_name: string;
  period: number;
  algorithm: TotpAlgorithm;
  digits: number;
  skew: number;
  /** codes already accepted, with the counter they were valid for (Vault refuses reuse) */
  used: { code: string; counter: number }[];
}

export const totpKeyBody = z
  .object({
    generate: weakBool({ default: false }),
    exported: weakBool({ default: true }),
    key_size: weakInt({ default: 20 }),
    url: weakString({ default: '' }),
    key: weakString({ default: '' }),
    issuer: weakString({ default: '' }),
    account_name: weakString({ default: '' }),
    period: weakDuration({ default: 30 }),
    algorithm: weakString({ default: 'SHA1' }),
    digits: weakInt({ default: 6 }),
    skew: weakInt({ default: 1 }),
    qr_size: weakInt({ default: 200 }),
  })
  .prefault({});
export type TotpKeyBody = z.output<typeof totpKeyBody>;

const bad = (message: string) => new DomainError('invalid_request', message);

/** Builds the key a create request asks for: generated, or imported from `key` or an otpauth `url`. */
export function decideTotpKey(body: TotpKeyBody, random = generateSecret): TotpKey {
  let { issuer, account_name: account, period, algorithm, digits } = body;
  let secret: string;
  if (body.generate) {
    if (body.key !== '') throw bad('a key should not be passed if generate is true');
    if (body.url !== '') throw bad('a URL should not be passed if generate is true');
    if (body.key_size <= 0) throw bad('the key_size value must be greater than zero');
    if (body.qr_size < 0) throw bad('the qr_size value must be greater than or equal to zero');
    secret = base32Encode(random(body.key_size));
  } else if (body.url !== '') {
    const parsed = parseOtpauthUrl(body.url);
    secret = parsed.secret;
    issuer = issuer || parsed.issuer;
    account = account || parsed.account;
    period = parsed.period ?? period;
    algorithm = parsed.algorithm ?? algorithm;
    digits = parsed.digits ?? digits;
  } else {
    if (body.key === '') throw bad('the key value is required');
    secret = body.key;
  }
  if (base32Decode(secret) === undefined) throw bad('invalid key value: illegal base32 data');
  if (body.generate && issuer === '') throw bad('the issuer value is required');
  if (body.generate && account === '') throw bad('the account_name value is required');
  if (digits !== 6 && digits !== 8) throw bad('the digits value can only be 6 or 8');
  if (period <= 0) throw bad('the period value must be greater than zero');
  if (body.skew !== 0 && body.skew !== 1) throw bad('the skew value must be 0 or 1');
  const algo = algorithm.toUpperCase();
  if (algo !== 'SHA1' && algo !== 'SHA256' && algo !== 'SHA512')
    throw bad('the algorithm value is not valid');
  return {
    key: secret.replace(/[\s=]/g, '').toUpperCase(),
    issuer,
    account_name: account,
    period,
    algorithm: algo,
    digits,
    skew: body.skew,
    used: [],
  };
}

function parseOtpauthUrl(url: string): {
  secret: string;
  issuer: string;
  account: string;
  period?: number;
  algorithm?: string;
  digits?: number;
} {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad('invalid URL');
  }
  if (u.protocol !== 'otpauth:' || u.host !== 'totp') throw bad('the URL is not an otpauth://totp URL');
  const label = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const [labelIssuer, labelAccount] = label.includes(':') ? label.split(':', 2) : ['', label];
  const num = (name: string) => {
    const v = u.searchParams.get(name);
    return v === null ? undefined : Number(v);
  };
  return {
    secret: u.searchParams.get('secret') ?? '',
    issuer: u.searchParams.get('issuer') ?? labelIssuer ?? '',
    account: labelAccount ?? '',
    period: num('period'),
    algorithm: u.searchParams.get('algorithm') ?? undefined,
    digits: num('digits'),
  };
}

/** The otpauth URL a generated, exported key is returned as. */
export function otpauthUrl(k: TotpKey): string {
  const label = encodeURIComponent(`${k.issuer}:${k.account_name}`);
  const q = new URLSearchParams({
    algorithm: k.algorithm,
    digits: String(k.digits),
    issuer: k.issuer,
    period: String(k.period),
    secret: k.key,
  });
  return `otpauth://totp/${label}?${q.toString()}`;
}
