import { isIP } from 'node:net';
import { UNDEFINED, SentinelFunction, isMap, typeName, type MapValue, type Value } from './values';

/** Raised by library functions; the evaluator adds the position. */
export class CallError extends Error {}

const fn = (name: string, call: (args: Value[]) => Value): SentinelFunction =>
  new SentinelFunction(name, call);

function str(v: Value, fname: string, i: number): string {
  if (typeof v !== 'string')
    throw new CallError(`${fname}: argument ${i + 1} must be a string, got ${typeName(v)}`);
  return v;
}

function arity(args: Value[], n: number, fname: string): void {
  if (args.length !== n) throw new CallError(`${fname} takes ${n} argument(s), got ${args.length}`);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A time as Sentinel's time import shows it (always UTC). */
export function timeValue(ms: number): MapValue {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    month_name: MONTHS[d.getUTCMonth()] ?? '',
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    nanosecond: d.getUTCMilliseconds() * 1_000_000,
    weekday: d.getUTCDay(),
    weekday_name: WEEKDAYS[d.getUTCDay()] ?? '',
    unix: Math.floor(ms / 1000),
    unix_nano: ms * 1_000_000,
    zone: 'UTC',
  };
}

function timeModule(nowMs: number): MapValue {
  return {
    now: timeValue(nowMs),
    load: fn('time.load', (args) => {
      arity(args, 1, 'time.load');
      const v = args[0] as Value;
      if (typeof v === 'number') return timeValue(v * 1000);
      if (isMap(v) && typeof v['unix_nano'] === 'number') return timeValue(v['unix_nano'] / 1_000_000);
      const text = str(v, 'time.load', 0);
      const ms = Date.parse(text);
      if (Number.isNaN(ms)) throw new CallError(`time.load: ${JSON.stringify(text)} is not an RFC 3339 time`);
      return timeValue(ms);
    }),
  };
}

const strings: MapValue = {
  has_prefix: fn(
    'strings.has_prefix',
    (a) => (
      arity(a, 2, 'strings.has_prefix'),
      str(a[0] as Value, 'strings.has_prefix', 0).startsWith(str(a[1] as Value, 'strings.has_prefix', 1))
    ),
  ),
  has_suffix: fn(
    'strings.has_suffix',
    (a) => (
      arity(a, 2, 'strings.has_suffix'),
      str(a[0] as Value, 'strings.has_suffix', 0).endsWith(str(a[1] as Value, 'strings.has_suffix', 1))
    ),
  ),
  trim_prefix: fn('strings.trim_prefix', (a) => {
    arity(a, 2, 'strings.trim_prefix');
    const s = str(a[0] as Value, 'strings.trim_prefix', 0);
    const p = str(a[1] as Value, 'strings.trim_prefix', 1);
    return s.startsWith(p) ? s.slice(p.length) : s;
  }),
  trim_suffix: fn('strings.trim_suffix', (a) => {
    arity(a, 2, 'strings.trim_suffix');
    const s = str(a[0] as Value, 'strings.trim_suffix', 0);
    const p = str(a[1] as Value, 'strings.trim_suffix', 1);
    return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
  }),
  trim_space: fn(
    'strings.trim_space',
    (a) => (arity(a, 1, 'strings.trim_space'), str(a[0] as Value, 'strings.trim_space', 0).trim()),
  ),
  to_lower: fn(
    'strings.to_lower',
    (a) => (arity(a, 1, 'strings.to_lower'), str(a[0] as Value, 'strings.to_lower', 0).toLowerCase()),
  ),
  to_upper: fn(
    'strings.to_upper',
    (a) => (arity(a, 1, 'strings.to_upper'), str(a[0] as Value, 'strings.to_upper', 0).toUpperCase()),
  ),
  split: fn(
    'strings.split',
    (a) => (
      arity(a, 2, 'strings.split'),
      str(a[0] as Value, 'strings.split', 0).split(str(a[1] as Value, 'strings.split', 1))
    ),
  ),
  join: fn('strings.join', (a) => {
    arity(a, 2, 'strings.join');
    const list = a[0] as Value;
    if (!Array.isArray(list))
      throw new CallError(`strings.join: argument 1 must be a list, got ${typeName(list)}`);
    return list.map((x, i) => str(x, 'strings.join', i)).join(str(a[1] as Value, 'strings.join', 1));
  }),
};

/** An IP address or CIDR as the host's BlockList understands it; IPv4-mapped IPv6 is read as IPv4. */
function parseAddress(text: string, fname: string): { ip: string; family: 'ipv4' | 'ipv6'; prefix?: number } {
  const [first = '', prefixText] = text.trim().split('/');
  let ip = first;
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) ip = ip.slice(7);
  // host:port and [v6]:port, as remote addresses sometimes come
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) ip = bracketed[1] ?? '';
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(ip)) ip = ip.replace(/:\d+$/, '');
  const version = isIP(ip);
  if (version === 0) throw new CallError(`${fname}: ${JSON.stringify(text)} is not an IP address or CIDR`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { ip, family };
  const prefix = Number(prefixText);
  if (!/^\d+$/.test(prefixText) || prefix > (version === 4 ? 32 : 128)) {
    throw new CallError(`${fname}: ${JSON.stringify(text)} has a bad prefix length`);
  }
  return { ip, family, prefix };
}

/**
 * sockaddr.is_contained(container, address): whether the address (or network) lies in the
 * container network. Vault's own examples pass the arguments both ways round, so when only the
 * second argument is a network it is taken as the container.
 */
function isContained(args: Value[]): boolean {
  arity(args, 2, 'sockaddr.is_contained');
  let outer = parseAddress(str(args[0] as Value, 'sockaddr.is_contained', 0), 'sockaddr.is_contained');
  let inner = parseAddress(str(args[1] as Value, 'sockaddr.is_contained', 1), 'sockaddr.is_contained');
  if (outer.prefix === undefined && inner.prefix !== undefined) [outer, inner] = [inner, outer];
  if (outer.family !== inner.family) return false;
  const full = outer.family === 'ipv4' ? 32 : 128;
  const outerPrefix = outer.prefix ?? full;
  const innerPrefix = inner.prefix ?? full;
  if (innerPrefix < outerPrefix) return false;
  return prefixEqual(bytesOf(outer.ip, outer.family), bytesOf(inner.ip, inner.family), outerPrefix);
}

/**
 * Address bytes, parsed here rather than by node:net's BlockList, whose check() allocates a
 * SocketAddress per call and was most of an evaluation's cost (measured in bench/suites/sentinel).
 */
const parsedBytes = new Map<string, Uint8Array>();
function bytesOf(ip: string, family: 'ipv4' | 'ipv6'): Uint8Array {
  let bytes = parsedBytes.get(ip);
  if (bytes) return bytes;
  bytes = family === 'ipv4' ? ipv4Bytes(ip) : ipv6Bytes(ip);
  if (parsedBytes.size > 10_000) parsedBytes.clear();
  parsedBytes.set(ip, bytes);
  return bytes;
}

function ipv4Bytes(ip: string): Uint8Array {
  return Uint8Array.from(ip.split('.').map(Number));
}

/** isIP() has validated the text already. */
function ipv6Bytes(ip: string): Uint8Array {
  const out = new Uint8Array(16);
  let text = ip.split('%')[0] ?? '';
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail = [...ipv4Bytes(v4[1] ?? '')];
    text = text.slice(0, -(v4[1] ?? '').length) + '0:0';
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  all.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

function prefixEqual(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  let i = 0;
  for (; bits >= 8; bits -= 8, i++) if (a[i] !== b[i]) return false;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((a[i] ?? 0) & mask) === ((b[i] ?? 0) & mask);
}

const sockaddr: MapValue = {
  is_contained: fn('sockaddr.is_contained', isContained),
  is_equal: fn('sockaddr.is_equal', (a) => {
    arity(a, 2, 'sockaddr.is_equal');
    const x = parseAddress(str(a[0] as Value, 'sockaddr.is_equal', 0), 'sockaddr.is_equal');
    const y = parseAddress(str(a[1] as Value, 'sockaddr.is_equal', 1), 'sockaddr.is_equal');
    return (
      x.family === y.family &&
      x.prefix === y.prefix &&
      isContained([`${x.ip}/${x.family === 'ipv4' ? 32 : 128}`, y.ip])
    );
  }),
  is_ipv4: fn(
    'sockaddr.is_ipv4',
    (a) => (
      arity(a, 1, 'sockaddr.is_ipv4'),
      isIP(parseAddress(str(a[0] as Value, 'sockaddr.is_ipv4', 0), 'sockaddr.is_ipv4').ip) === 4
    ),
  ),
  is_ipv6: fn(
    'sockaddr.is_ipv6',
    (a) => (
      arity(a, 1, 'sockaddr.is_ipv6'),
      isIP(parseAddress(str(a[0] as Value, 'sockaddr.is_ipv6', 0), 'sockaddr.is_ipv6').ip) === 6
    ),
  ),
};

/** The module an import names, for one evaluation (time.now is the request's time). */
export function loadImport(name: string, nowMs: number): MapValue {
  if (name === 'time') return timeModule(nowMs);
  if (name === 'strings') return strings;
  if (name === 'sockaddr') return sockaddr;
  throw new CallError(`unknown import ${JSON.stringify(name)}`);
}

function toInt(v: Value): Value {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(v)) return Math.trunc(Number(v));
  throw new CallError(`int: cannot convert ${typeName(v)} ${JSON.stringify(v)}`);
}

/** Sentinel's builtin functions of the subset. */
export const BUILTINS: Record<string, SentinelFunction> = {
  length: fn('length', (a) => {
    arity(a, 1, 'length');
    const v = a[0] as Value;
    if (typeof v === 'string') return [...v].length;
    if (Array.isArray(v)) return v.length;
    if (isMap(v)) return Object.keys(v).length;
    throw new CallError(`length: cannot take the length of ${typeName(v)}`);
  }),
  keys: fn('keys', (a) => {
    arity(a, 1, 'keys');
    const v = a[0] as Value;
    if (!isMap(v)) throw new CallError(`keys: argument must be a map, got ${typeName(v)}`);
    return Object.keys(v);
  }),
  values: fn('values', (a) => {
    arity(a, 1, 'values');
    const v = a[0] as Value;
    if (!isMap(v)) throw new CallError(`values: argument must be a map, got ${typeName(v)}`);
    return Object.keys(v).map((k) => v[k] as Value);
  }),
  int: fn('int', (a) => (arity(a, 1, 'int'), toInt(a[0] as Value))),
  float: fn('float', (a) => {
    arity(a, 1, 'float');
    const v = a[0] as Value;
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
    throw new CallError(`float: cannot convert ${typeName(v)} ${JSON.stringify(v)}`);
  }),
  string: fn('string', (a) => {
    arity(a, 1, 'string');
    const v = a[0] as Value;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v === null) return 'null';
    throw new CallError(`string: cannot convert ${typeName(v)}`);
  }),
  bool: fn('bool', (a) => {
    arity(a, 1, 'bool');
    const v = a[0] as Value;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && ['true', 'false'].includes(v.toLowerCase()))
      return v.toLowerCase() === 'true';
    throw new CallError(`bool: cannot convert ${typeName(v)} ${JSON.stringify(v)}`);
  }),
};

export { UNDEFINED };
