import { z } from 'zod';
import { formatRequestIssues } from '../fields/request-errors';
import {
  kvV2ConfigBodySchema,
  kvV2DataBodySchema,
  kvV2MetadataBodySchema,
  kvV2MetadataPatchBodySchema,
  kvV2VersionsBodySchema,
  subkeysQuerySchema,
  versionQuerySchema,
} from './kv-v2.schema';

/** What the handler receives for `value`, or throws the caller's error text. */
function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(formatRequestIssues(result.error));
  return result.data;
}
const messageOf = (schema: z.ZodType, value: unknown): string => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a failure');
  return formatRequestIssues(result.error);
};

describe('kv v2 request schemas', () => {
  it('parses config, normalising a negative delete_version_after to "disabled"', () => {
    expect(parse(kvV2ConfigBodySchema, {})).toEqual({
      max_versions: undefined,
      cas_required: undefined,
      delete_version_after: undefined,
    });
    expect(
      parse(kvV2ConfigBodySchema, { max_versions: '5', cas_required: 'true', delete_version_after: '1h' }),
    ).toEqual({ max_versions: 5, cas_required: true, delete_version_after: 3600 });
    expect(parse(kvV2ConfigBodySchema, { delete_version_after: '-5s' }).delete_version_after).toBe(-1);
    expect(parse(kvV2ConfigBodySchema, { delete_version_after: 90 }).delete_version_after).toBe(90);
    expect(messageOf(kvV2ConfigBodySchema, { max_versions: -1 })).toBe('max_versions cannot be negative');
    expect(messageOf(kvV2ConfigBodySchema, { delete_version_after: 'soon' })).toContain(
      'time: invalid duration',
    );
    expect(
      parse(kvV2ConfigBodySchema, { max_versions: null, cas_required: null }).max_versions,
    ).toBeUndefined();
  });

  it('parses version and depth queries', () => {
    expect(parse(versionQuerySchema, {}).version).toBe(0);
    expect(parse(versionQuerySchema, { version: '3' }).version).toBe(3);
    expect(parse(versionQuerySchema, { version: '-2' }).version).toBe(0);
    expect(messageOf(versionQuerySchema, { version: 'latest' })).toContain('for field "version"');
    expect(parse(subkeysQuerySchema, { depth: '2' }).depth).toBe(2);
    expect(messageOf(subkeysQuerySchema, { depth: '-1' })).toBe('depth must be a non-negative integer');
  });

  it('requires data to be an object', () => {
    expect(messageOf(kvV2DataBodySchema, {})).toBe('no data provided');
    expect(messageOf(kvV2DataBodySchema, { data: null })).toBe('no data provided');
    expect(messageOf(kvV2DataBodySchema, { data: 'x' })).toBe(
      `Field validation failed: error converting input for field "data": '' expected a map, got 'string'`,
    );
    expect(messageOf(kvV2DataBodySchema, { data: [1] })).toContain('expected a map');
    expect(parse(kvV2DataBodySchema, { data: { a: 1 }, options: { cas: '0' } })).toEqual({
      data: { a: 1 },
      options: { cas: 0 },
    });
    expect(parse(kvV2DataBodySchema, { data: {} }).options.cas).toBeUndefined();
    expect(parse(kvV2DataBodySchema, { data: {}, options: null }).options.cas).toBeUndefined();
  });

  it('parses cas weakly, with Vault text on failure', () => {
    const cas = (value: unknown) =>
      parse(kvV2DataBodySchema, { data: {}, options: { cas: value } }).options.cas;
    expect(cas(2)).toBe(2);
    expect(cas('3')).toBe(3);
    expect(cas(null)).toBeUndefined();
    for (const bad of ['three', {}]) {
      expect(messageOf(kvV2DataBodySchema, { data: {}, options: { cas: bad } })).toBe(
        'error parsing check-and-set parameter',
      );
    }
  });

  it('parses versions lists', () => {
    expect(parse(kvV2VersionsBodySchema, { versions: [1, 2] }).versions).toEqual([1, 2]);
    expect(parse(kvV2VersionsBodySchema, { versions: '3,4' }).versions).toEqual([3, 4]);
    expect(parse(kvV2VersionsBodySchema, {}).versions).toEqual([]);
  });

  it('parses metadata, validating custom_metadata like Vault', () => {
    expect(
      parse(kvV2MetadataBodySchema, { custom_metadata: { a: 'x', n: 1, b: true } }).custom_metadata,
    ).toEqual({
      a: 'x',
      n: '1',
      b: '1',
    });
    expect(messageOf(kvV2MetadataBodySchema, { custom_metadata: { a: '' } })).toBe(
      '1 error occurred:\n\t* custom_metadata validation failed: length of value for key "a" is 0 but must be 0 < len(value) <= 512\n\n',
    );
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect(messageOf(kvV2MetadataBodySchema, { custom_metadata: many })).toContain(
      'payload must contain at most 64 keys, provided 65',
    );
    expect(messageOf(kvV2MetadataBodySchema, { custom_metadata: { 'k\u0007': 'v\u0000' } })).toMatch(
      /^2 errors occurred/,
    );
    expect(messageOf(kvV2MetadataBodySchema, { custom_metadata: { a: {} } })).toBe(
      'custom_metadata validation failed: value for key "a" must be a string',
    );
    expect(messageOf(kvV2MetadataBodySchema, { delete_version_after: '-1s' })).toBe(
      'delete_version_after cannot be negative',
    );
  });

  it('keeps null in a custom_metadata patch: it removes the key', () => {
    expect(
      parse(kvV2MetadataPatchBodySchema, { custom_metadata: { a: null, c: 3 } }).custom_metadata,
    ).toEqual({
      a: null,
      c: '3',
    });
    const settingsOnly = parse(kvV2MetadataPatchBodySchema, { max_versions: 3 });
    expect(settingsOnly.max_versions).toBe(3);
    expect(settingsOnly.custom_metadata).toBeUndefined();
  });
});
