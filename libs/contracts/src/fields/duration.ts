import { DomainError } from '../domain-errors';

/**
 * Vault's duration rules (go-secure-stdlib parseutil.ParseDurationSecond): an integer (number or
 * string, optionally signed) is seconds; "<int>d" is days; anything else is a Go duration
 * ("1h30m", "90s", "1.5h", "300ms", units ns/us/µs/ms/s/m/h); "" is 0. Arithmetic is done on
 * int64 nanoseconds like Go, so overflow is reported rather than silently rounded.
 */

const NS_PER_SECOND = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC greek mu
  ms: 1_000_000n,
  s: NS_PER_SECOND,
  m: 60n * NS_PER_SECOND,
  h: 3600n * NS_PER_SECOND,
};

const invalid = (message: string): DomainError => new DomainError('invalid_request', message);
const quote = (s: string): string => JSON.stringify(s);

/** Parses a Go duration string (time.ParseDuration) to nanoseconds. */
export function parseGoDuration(input: string): bigint {
  let s = input;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid(`time: invalid duration ${quote(input)}`);
  let total = 0n;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s);
    const whole = m?.[1] ?? '';
    const frac = m?.[2];
    if (!m || (whole === '' && (frac === undefined || frac === ''))) {
      throw invalid(`time: invalid duration ${quote(input)}`);
    }
    s = s.slice(m[0].length);
    const unitMatch = /^[^0-9.]+/.exec(s);
    if (!unitMatch) throw invalid(`time: missing unit in duration ${quote(input)}`);
    const unitName = unitMatch[0];
    const unit = UNITS[unitName];
    if (unit === undefined)
      throw invalid(`time: unknown unit ${quote(unitName)} in duration ${quote(input)}`);
    s = s.slice(unitName.length);
    let value = BigInt(whole === '' ? '0' : whole) * unit;
    if (frac) {
      // Go keeps the fraction as exact as int64 allows; 18 digits are enough for any unit.
      const digits = frac.slice(0, 18);
      value += (BigInt(digits) * unit) / 10n ** BigInt(digits.length);
    }
    total += value;
    if (total > MAX_INT64) throw invalid(`time: invalid duration ${quote(input)}`);
  }
  return neg ? -total : total;
}

/** Vault's ParseDurationSecond, in nanoseconds. */
export function parseDurationNanos(input: string | number): bigint {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw invalid(`time: invalid duration ${quote(String(input))}`);
    // A JSON 1.5 reaches Vault as the string "1.5", which has no unit.
    if (!Number.isInteger(input)) throw invalid(`time: missing unit in duration ${quote(String(input))}`);
    return checked(BigInt(input) * NS_PER_SECOND, String(input));
  }
  const s = input;
  if (s === '') return 0n;
  if (/^[+-]?[0-9]+$/.test(s)) return checked(BigInt(s) * NS_PER_SECOND, s);
  if (s.endsWith('d')) {
    const days = s.slice(0, -1);
    if (!/^[+-]?[0-9]+$/.test(days))
      throw invalid(`strconv.ParseInt: parsing ${quote(days)}: invalid syntax`);
    return checked(BigInt(days) * 86_400n * NS_PER_SECOND, s);
  }
  return parseGoDuration(s);
}

function checked(ns: bigint, original: string): bigint {
  if (ns > MAX_INT64 || ns < -MAX_INT64 - 1n) throw invalid(`time: invalid duration ${quote(original)}`);
  return ns;
}

/**
 * Vault-style duration to whole seconds ("30m" -> 1800, "10" -> 10, 10 -> 10, "1d" -> 86400,
 * "1500ms" -> 1, truncated toward zero like Go's int64(d.Seconds())). Throws
 * DomainError('invalid_request', Go's error text) on bad input.
 */
export function parseDuration(input: string | number): number {
  return Number(parseDurationNanos(input) / NS_PER_SECOND);
}

/** Same rules, whole milliseconds (for settings where sub-second values matter). */
export function parseDurationMs(input: string | number): number {
  return Number(parseDurationNanos(input) / 1_000_000n);
}

/**
 * Go's time.Duration.String() for a number of seconds: 0 -> "0s", 1800 -> "30m0s",
 * 2764800 -> "768h0m0s", 1.5 -> "1.5s", 0.0015 -> "1.5ms".
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) throw new RangeError(`cannot format ${seconds} as a duration`);
  const whole = Math.trunc(seconds);
  const frac = seconds - whole;
  return formatNanos(BigInt(whole) * NS_PER_SECOND + BigInt(Math.round(frac * 1e9)));
}

export function formatNanos(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u === 0n) return '0s';
  if (u < NS_PER_SECOND) {
    let prec: number;
    let unit: string;
    if (u < 1_000n) {
      prec = 0;
      unit = 'ns';
    } else if (u < 1_000_000n) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, rest] = fmtFrac(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Go's fmtFrac: the fractional digits of v / 10^prec without trailing zeros, and the quotient. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) digits = `${digit}${digits}`;
    v /= 10n;
  }
  return [print ? `.${digits}` : '', v];
}
