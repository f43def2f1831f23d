import {
  columns,
  formatDuration,
  formatStructured,
  formatValue,
  formatWarnings,
  headedTable,
  keyValueTable,
  listTable,
  rawField,
  secretRows,
  sectionHeading,
  selectField,
} from './cli-format';
import { hintFor, ApiError, ConnectionError } from './cli-errors';

describe("Vault's value spelling", () => {
  it('prints null as n/a, lists and maps as Go does', () => {
    expect(formatValue(null)).toBe('n/a');
    expect(formatValue(['a', 'b'])).toBe('[a b]');
    expect(formatValue([])).toBe('[]');
    expect(formatValue({ b: 1, a: [true] })).toBe('map[a:[true] b:1]');
    expect(formatValue(3)).toBe('3');
  });

  it('prints durations as Go humanizes them', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(90)).toBe('1m30s');
    expect(formatDuration(300)).toBe('5m');
    expect(formatDuration(3600)).toBe('1h');
    expect(formatDuration(2_764_800)).toBe('768h');
    expect(formatDuration(3661)).toBe('1h1m1s');
  });
});

describe('tables', () => {
  it('aligns columns with four spaces and no borders', () => {
    expect(
      columns([
        ['a', 'b'],
        ['long key', 'c'],
      ]),
    ).toBe('a           b\nlong key    c');
  });

  it('heads a table with dashed rules as long as each heading', () => {
    expect(headedTable(['Path', 'Type'], [['secret/', 'kv']])).toBe(
      'Path       Type\n----       ----\nsecret/    kv',
    );
    expect(listTable(['a', 'b'])).toBe('Keys\n----\na\nb');
  });

  it('renders key/value rows', () => {
    expect(
      keyValueTable([
        ['k', 'v'],
        ['list', ['x']],
      ]),
    ).toBe('Key     Value\n---     -----\nk       v\nlist    [x]');
  });

  it('centres section headings over the block', () => {
    expect(sectionHeading('Data', 12)).toBe('=== Data ===');
  });

  it('prints warnings in a block above the table', () => {
    expect(formatWarnings(['one', 'two'])).toBe(
      'WARNING! The following warnings were returned from Vault:\n\n  * one\n\n  * two\n\n',
    );
    expect(formatWarnings([])).toBe('');
  });
});

describe("the secret table's rows", () => {
  it('lists lease fields, then the data keys sorted', () => {
    const rows = secretRows({
      lease_id: 'pki/issue/x/1',
      lease_duration: 600,
      renewable: false,
      data: { z: 1, a: 2 },
    });
    expect(rows).toEqual([
      ['lease_id', 'pki/issue/x/1'],
      ['lease_duration', '10m'],
      ['lease_renewable', false],
      ['a', 2],
      ['z', 1],
    ]);
  });

  it('shows a refresh interval for a lease duration without a lease', () => {
    expect(secretRows({ lease_id: '', lease_duration: 2_764_800, data: {} })).toEqual([
      ['refresh_interval', '768h'],
    ]);
  });

  it('shows auth and wrap info as Vault does', () => {
    const rows = secretRows({
      data: null,
      auth: {
        client_token: 't',
        accessor: 'acc',
        lease_duration: 0,
        renewable: false,
        policies: ['root'],
        token_policies: ['root'],
        metadata: { user: 'bob' },
      },
      wrap_info: { token: 'w', accessor: 'wa', ttl: 300, creation_time: 'now', creation_path: 'p' },
    });
    expect(rows).toEqual([
      ['token', 't'],
      ['token_accessor', 'acc'],
      ['token_duration', '∞'],
      ['token_renewable', false],
      ['token_policies', ['root']],
      ['identity_policies', []],
      ['policies', ['root']],
      ['token_meta_user', 'bob'],
      ['wrapping_token:', 'w'],
      ['wrapping_accessor:', 'wa'],
      ['wrapping_token_ttl:', '5m'],
      ['wrapping_token_creation_time:', 'now'],
      ['wrapping_token_creation_path:', 'p'],
    ]);
  });
});

describe('-field', () => {
  const body = {
    lease_id: 'l',
    lease_duration: 0,
    data: { password: 'pw', n: 1 },
    auth: { client_token: 'tok', accessor: 'a' },
    wrap_info: { token: 'wrapped' },
  };

  it('prefers data keys, then the table rows, then envelope fields', () => {
    expect(selectField(body, 'password')).toBe('pw');
    expect(selectField(body, 'token')).toBe('tok');
    expect(selectField(body, 'wrapping_token')).toBe('wrapped');
    expect(selectField(body, 'lease_id')).toBe('l');
    expect(selectField(body, 'nope')).toBeUndefined();
  });

  it('prints strings bare and everything else as JSON', () => {
    expect(rawField('pw')).toBe('pw');
    expect(rawField(1)).toBe('1');
    expect(rawField({ a: 1 })).toBe('{"a":1}');
  });
});

describe('structured output', () => {
  it('prints JSON indented and YAML', () => {
    expect(formatStructured({ a: 1 }, 'json')).toBe('{\n  "a": 1\n}\n');
    expect(formatStructured({ a: [1] }, 'yaml')).toBe('a:\n  - 1\n');
  });
});

describe('error hints', () => {
  const err = (status: number, ...errors: string[]) =>
    new ApiError('GET', 'http://x/v1/secret/a', status, errors);

  it('hints for sealed, denied, invalid token, unsupported path and refused connections', () => {
    expect(hintFor(err(503, 'Vault is sealed'))).toMatch(/operator unseal/);
    expect(hintFor(err(403, '1 error occurred:\n\t* permission denied\n\n'))).toMatch(/token capabilities/);
    expect(hintFor(err(403, 'invalid token'))).toMatch(/coffer login/);
    expect(hintFor(err(404, 'unsupported path'))).toMatch(/secrets list/);
    expect(hintFor(new ApiError('GET', 'http://x/v1/sys/nope', 404, ['unsupported path']))).toMatch(/sys\//);
    expect(hintFor(new ConnectionError('http://x', new Error('ECONNREFUSED')))).toMatch(/COFFER_ADDR/);
    expect(hintFor(err(400, 'something else'))).toBeUndefined();
  });
});
