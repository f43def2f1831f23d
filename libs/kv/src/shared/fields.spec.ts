import { DomainError } from '@coffer/contracts';
import { parseBoolField, parseCas, parseIntField, parseIntListField } from './fields';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError && e.code === 'invalid_request') return e.message;
    throw e;
  }
  throw new Error('expected invalid_request');
};

describe('weakly typed fields', () => {
  it('parses integers from numbers and decimal strings', () => {
    expect(parseIntField('version', 3)).toBe(3);
    expect(parseIntField('version', '12')).toBe(12);
    expect(parseIntField('version', '-1')).toBe(-1);
    expect(parseIntField('version', '')).toBe(0);
  });

  it('rejects a version that is not an integer with a field validation error', () => {
    expect(messageOf(() => parseIntField('version', 'abc'))).toBe(
      'Field validation failed: error converting input abc for field "version": cannot parse \'abc\' as int: strconv.ParseInt: parsing "abc": invalid syntax',
    );
    expect(messageOf(() => parseIntField('version', '1.5'))).toContain('for field "version"');
    expect(messageOf(() => parseIntField('version', 1.5))).toContain('for field "version"');
    expect(messageOf(() => parseIntField('max_versions', true))).toContain('for field "max_versions"');
  });

  it('parses booleans like Go strconv.ParseBool', () => {
    expect(parseBoolField('cas_required', 'true')).toBe(true);
    expect(parseBoolField('cas_required', 'F')).toBe(false);
    expect(parseBoolField('cas_required', 1)).toBe(true);
    expect(messageOf(() => parseBoolField('cas_required', 'yes'))).toContain('for field "cas_required"');
  });

  it('parses version lists from arrays and comma-separated strings', () => {
    expect(parseIntListField('versions', [1, '2'])).toEqual([1, 2]);
    expect(parseIntListField('versions', '1, 2,3')).toEqual([1, 2, 3]);
    expect(parseIntListField('versions', 4)).toEqual([4]);
    expect(parseIntListField('versions', undefined)).toEqual([]);
    expect(messageOf(() => parseIntListField('versions', ['x']))).toContain('for field "versions"');
  });

  it('parses cas weakly, with Vault text on failure', () => {
    expect(parseCas(2)).toBe(2);
    expect(parseCas('3')).toBe(3);
    expect(messageOf(() => parseCas('three'))).toBe('error parsing check-and-set parameter');
    expect(messageOf(() => parseCas({}))).toBe('error parsing check-and-set parameter');
  });
});
