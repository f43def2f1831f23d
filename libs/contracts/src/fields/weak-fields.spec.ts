import { z } from 'zod';
import { formatRequestIssues } from './request-errors';
import {
  weakBool,
  weakDuration,
  weakInt,
  weakIntList,
  weakMap,
  weakString,
  weakStringList,
  weakStringMap,
} from './weak-fields';

/** Parses `{ [field]: value }` and answers the output, or the caller's error text. */
function decode(field: string, schema: z.ZodType, value: unknown): unknown {
  const result = z.object({ [field]: schema }).safeParse({ [field]: value });
  if (result.success) return (result.data as Record<string, unknown>)[field];
  return { error: formatRequestIssues(result.error) };
}
const errorOf = (field: string, schema: z.ZodType, value: unknown): string =>
  (decode(field, schema, value) as { error: string }).error;

describe('weak fields', () => {
  it('reads null as "not set", like an absent field', () => {
    expect(decode('n', weakInt(), null)).toBeUndefined();
    expect(decode('n', weakInt({ default: 7 }), null)).toBe(7);
    expect(z.object({ n: weakInt({ default: 7 }) }).parse({})).toEqual({ n: 7 });
    expect(decode('b', weakBool({ default: false }), null)).toBe(false);
    expect(decode('d', weakDuration(), null)).toBeUndefined();
    expect(decode('l', weakStringList({ default: [] }), null)).toEqual([]);
    expect(decode('m', weakStringMap(), null)).toBeUndefined();
    expect(decode('m', weakMap(), null)).toBeUndefined();
  });

  it('parses integers from numbers and decimal strings', () => {
    expect(decode('version', weakInt(), 3)).toBe(3);
    expect(decode('version', weakInt(), '12')).toBe(12);
    expect(decode('version', weakInt(), '-1')).toBe(-1);
    expect(decode('version', weakInt(), '')).toBe(0);
    expect(decode('n', weakInt({ bools: true }), true)).toBe(1);
  });

  it('rejects a value that is not an integer with a field validation error', () => {
    expect(errorOf('version', weakInt(), 'abc')).toBe(
      'Field validation failed: error converting input abc for field "version": cannot parse \'abc\' as int: strconv.ParseInt: parsing "abc": invalid syntax',
    );
    expect(errorOf('version', weakInt(), '1.5')).toContain('for field "version"');
    expect(errorOf('version', weakInt(), 1.5)).toContain('for field "version"');
    expect(errorOf('max_versions', weakInt(), true)).toContain('for field "max_versions"');
  });

  it('words errors the way a handler asks', () => {
    const schema = weakBool({
      message: ({ field, input }) => `cannot parse '${field}' as bool: ${String(input)}`,
    });
    expect(errorOf('local', schema, 'yes')).toBe("cannot parse 'local' as bool: yes");
  });

  it("expresses the token store's and the mount table's own texts", () => {
    const asBool = weakBool({
      message: ({ field, input, cause }) =>
        cause === 'value'
          ? `cannot parse '${field}' as bool: strconv.ParseBool: parsing ${JSON.stringify(input)}: invalid syntax`
          : `cannot parse '${field}' as bool`,
    });
    expect(errorOf('renewable', asBool, 'maybe')).toBe(
      'cannot parse \'renewable\' as bool: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(errorOf('renewable', asBool, [])).toBe("cannot parse 'renewable' as bool");
    const ttl = weakDuration({
      message: ({ input, reason }) => `unable to parse default TTL of ${String(input)}: ${reason}`,
    });
    expect(errorOf('default_lease_ttl', ttl, 'x')).toBe(
      'unable to parse default TTL of x: time: invalid duration "x"',
    );
    const options = weakStringMap({
      nulls: 'skip',
      bools: 'text',
      valueMessage: ({ key }) => `invalid value for option '${key}': expected a string`,
    });
    expect(decode('options', options, { version: 2, x: null, b: true })).toEqual({ version: '2', b: 'true' });
    expect(errorOf('options', options, { v: [] })).toBe("invalid value for option 'v': expected a string");
  });

  it('parses booleans like Go strconv.ParseBool', () => {
    expect(decode('cas_required', weakBool(), 'true')).toBe(true);
    expect(decode('cas_required', weakBool(), 'F')).toBe(false);
    expect(decode('cas_required', weakBool(), 1)).toBe(true);
    expect(decode('cas_required', weakBool(), '')).toBe(false);
    expect(errorOf('cas_required', weakBool(), 'yes')).toContain('for field "cas_required"');
    expect(errorOf('x', weakBool({ strictNumbers: true }), 2)).toContain('for field "x"');
  });

  it('parses durations with Go text on failure', () => {
    expect(decode('ttl', weakDuration(), '1h30m')).toBe(5400);
    expect(decode('ttl', weakDuration(), 90)).toBe(90);
    expect(decode('ttl', weakDuration(), '2d')).toBe(172800);
    expect(errorOf('ttl', weakDuration(), 'soon')).toBe('time: invalid duration "soon"');
    expect(errorOf('ttl', weakDuration(), {})).toBe(
      'Field validation failed: error converting input for field "ttl": not a duration',
    );
  });

  it('parses lists from arrays and comma-separated strings', () => {
    expect(decode('versions', weakIntList(), [1, '2'])).toEqual([1, 2]);
    expect(decode('versions', weakIntList(), '1, 2,3')).toEqual([1, 2, 3]);
    expect(decode('versions', weakIntList(), 4)).toEqual([4]);
    expect(decode('versions', weakIntList({ default: [] }), undefined)).toEqual([]);
    expect(errorOf('versions', weakIntList(), ['x'])).toContain('for field "versions"');
    expect(decode('policies', weakStringList(), 'a, b,,c')).toEqual(['a', 'b', 'c']);
    expect(decode('policies', weakStringList(), ['a', 1])).toEqual(['a', '1']);
    expect(errorOf('policies', weakStringList(), {})).toContain('for field "policies"');
  });

  it('decodes strings and string maps, keeping every key as an own property', () => {
    expect(decode('s', weakString(), 5)).toBe('5');
    expect(errorOf('s', weakString(), [])).toContain('for field "s"');
    const map = decode('meta', weakStringMap(), JSON.parse('{"__proto__":"x","n":1,"b":true,"z":null}'));
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(Object.keys(map as object)).toEqual(['__proto__', 'n', 'b', 'z']);
    expect(JSON.stringify(map)).toBe('{"__proto__":"x","n":"1","b":"1","z":""}');
    expect(decode('meta', weakStringMap({ nulls: 'skip', bools: 'text' }), { b: false, z: null })).toEqual({
      b: 'false',
    });
    expect(errorOf('meta', weakStringMap(), 'x')).toBe(
      `Field validation failed: error converting input for field "meta": '' expected a map, got 'string'`,
    );
  });

  it('passes maps through as received', () => {
    const given = JSON.parse('{"__proto__":"x","constructor":"y"}') as object;
    expect(decode('data', weakMap(), given)).toBe(given);
    expect(errorOf('data', weakMap(), [1])).toBe(
      `Field validation failed: error converting input for field "data": '' expected a map, got 'slice'`,
    );
  });
});

describe('formatRequestIssues', () => {
  it('groups plain zod issues by request part', () => {
    const schema = z.object({ body: z.object({ count: z.number() }), query: z.object({ v: z.string() }) });
    const result = schema.safeParse({ body: { count: 'x' }, query: {} });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(formatRequestIssues(result.error)).toMatch(
        /^invalid request body: count: .*; invalid request query: v: /,
      );
    }
  });
});
