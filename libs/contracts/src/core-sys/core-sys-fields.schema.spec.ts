import { z } from 'zod';
import { formatRequestIssues } from '../fields';
import {
  fieldBool,
  fieldDuration,
  fieldInt,
  fieldStringList,
  fieldStringMap,
  mountFlag,
  oneOf,
  optionalDuration,
} from './core-sys-fields.schema';
import { sysContracts } from './system.routes';
import { tokenContracts } from './token.routes';

/** The text a caller reads for `value` in field `name` (or the parsed value). */
function read(schema: z.ZodType, value: unknown, name = 'f'): unknown {
  const parsed = z.object({ [name]: schema }).safeParse({ [name]: value });
  return parsed.success ? (parsed.data as Record<string, unknown>)[name] : formatRequestIssues(parsed.error);
}

describe('core-sys fields', () => {
  it('read null as not set, like an absent field', () => {
    for (const field of [fieldBool(), fieldInt(), fieldDuration(), fieldStringList(), fieldStringMap()]) {
      expect(read(field, null)).toBeUndefined();
    }
    expect(read(mountFlag(), null)).toBeUndefined();
    expect(read(optionalDuration({}), null)).toBeUndefined();
  });

  it('word failures the way framework.FieldData handlers do', () => {
    expect(read(fieldBool(), 'maybe', 'renewable')).toBe(
      'cannot parse \'renewable\' as bool: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(read(fieldBool(), ['x'], 'renewable')).toBe("cannot parse 'renewable' as bool");
    expect(read(fieldInt(), 'x', 'num_uses')).toBe(
      'cannot parse \'num_uses\' as int: strconv.ParseInt: parsing "x": invalid syntax',
    );
    expect(read(fieldInt(), 1.5, 'num_uses')).toBe("cannot parse 'num_uses' as int: not an integer");
    expect(read(fieldInt(), true)).toBe(1);
    expect(read(fieldDuration(), 'soon')).toBe('time: invalid duration "soon"');
    expect(read(fieldDuration(), {}, 'ttl')).toBe("cannot parse 'ttl' as duration");
    expect(read(fieldStringMap(undefined, 'failed to parse metadata: '), [1], 'metadata')).toBe(
      "failed to parse metadata: cannot parse 'metadata' as map[string]string",
    );
    expect(read(fieldStringMap(), { a: true, b: null, c: 2 })).toEqual({ a: 'true', b: '', c: '2' });
  });

  it('reads mount fields with the texts of sys/mounts', () => {
    expect(read(mountFlag(), 'x', 'local')).toBe("invalid value for 'local': expected a boolean");
    expect(read(mountFlag(), 2, 'local')).toBe("invalid value for 'local': expected a boolean");
    const ttl = optionalDuration({ zeroWord: 'system', wrap: (r, input) => `bad ${input}: ${r}` });
    expect(read(ttl, 'system')).toBe(0);
    expect(read(ttl, '')).toBeUndefined();
    expect(read(ttl, 90)).toBe(90);
    expect(read(ttl, 'abc')).toBe('bad abc: time: invalid duration "abc"');
    expect(
      read(
        oneOf(['', 'hidden'], (v) => `no ${v}`),
        'loud',
      ),
    ).toBe('no loud');
  });
});

describe('core-sys response data', () => {
  it('is an allow-list: what a contract does not declare never leaves', () => {
    const lookup = tokenContracts.lookupAccessor.response.parse({
      data: {
        accessor: 'a',
        creation_time: 1,
        creation_ttl: 0,
        display_name: 'token',
        entity_id: '',
        expire_time: null,
        explicit_max_ttl: 0,
        id: '',
        meta: JSON.parse('{"__proto__":"kept"}') as Record<string, unknown>,
        num_uses: 0,
        orphan: false,
        path: 'auth/token/create',
        policies: ['default'],
        ttl: 0,
        type: 'service',
        token_hash: 'never',
      },
    });
    expect(lookup.data).not.toHaveProperty('token_hash');
    expect(Object.keys(lookup.data?.meta ?? {})).toEqual(['__proto__']);
    const enabled = sysContracts.mountEnable.response.parse({ kind: 'injected', data: { leaked: 1 } });
    expect(enabled.data).toEqual({});
  });
});
