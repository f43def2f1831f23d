import { DomainError } from '@coffer/contracts';
import { DEFAULT_ENGINE_CONFIG } from './kv2.state';
import {
  parseConfigInput,
  parseDataWrite,
  parseDepthQuery,
  parseMetadataPatch,
  parseMetadataWrite,
  parseVersionQuery,
  parseVersionsBody,
} from './kv2.inputs';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError && e.code === 'invalid_request') return e.message;
    throw e;
  }
  throw new Error('expected invalid_request');
};

describe('kv v2 inputs', () => {
  it('parses config, normalising a negative delete_version_after to "disabled"', () => {
    expect(parseConfigInput({}, DEFAULT_ENGINE_CONFIG)).toBeNull();
    expect(
      parseConfigInput(
        { max_versions: '5', cas_required: 'true', delete_version_after: '1h' },
        DEFAULT_ENGINE_CONFIG,
      ),
    ).toEqual({
      maxVersions: 5,
      casRequired: true,
      deleteVersionAfter: 3600,
    });
    expect(parseConfigInput({ delete_version_after: '-5s' }, DEFAULT_ENGINE_CONFIG)?.deleteVersionAfter).toBe(
      -1,
    );
    expect(parseConfigInput({ delete_version_after: 90 }, DEFAULT_ENGINE_CONFIG)?.deleteVersionAfter).toBe(
      90,
    );
    expect(messageOf(() => parseConfigInput({ max_versions: -1 }, DEFAULT_ENGINE_CONFIG))).toBe(
      'max_versions cannot be negative',
    );
    expect(
      messageOf(() => parseConfigInput({ delete_version_after: 'soon' }, DEFAULT_ENGINE_CONFIG)),
    ).toContain('time: invalid duration');
  });

  it('parses version and depth queries', () => {
    expect(parseVersionQuery({})).toBe(0);
    expect(parseVersionQuery({ version: '3' })).toBe(3);
    expect(parseVersionQuery({ version: '-2' })).toBe(0);
    expect(messageOf(() => parseVersionQuery({ version: 'latest' }))).toContain('for field "version"');
    expect(parseDepthQuery({ depth: '2' })).toBe(2);
    expect(messageOf(() => parseDepthQuery({ depth: '-1' }))).toBe('depth must be a non-negative integer');
  });

  it('requires data to be an object', () => {
    expect(messageOf(() => parseDataWrite({}))).toBe('no data provided');
    expect(messageOf(() => parseDataWrite({ data: null }))).toBe('no data provided');
    expect(messageOf(() => parseDataWrite({ data: 'x' }))).toContain('expected a map');
    expect(messageOf(() => parseDataWrite({ data: [1] }))).toContain('expected a map');
    expect(parseDataWrite({ data: { a: 1 }, options: { cas: '0' } })).toEqual({ data: { a: 1 }, cas: 0 });
    expect(parseDataWrite({ data: {} }).cas).toBeUndefined();
  });

  it('parses versions lists', () => {
    expect(parseVersionsBody({ versions: [1, 2] })).toEqual([1, 2]);
    expect(parseVersionsBody({ versions: '3,4' })).toEqual([3, 4]);
    expect(parseVersionsBody({})).toEqual([]);
  });

  it('parses metadata, validating custom_metadata like Vault', () => {
    expect(parseMetadataWrite({ custom_metadata: { a: 'x', n: 1, b: true } })).toEqual({
      customMetadata: { a: 'x', n: '1', b: '1' },
    });
    expect(messageOf(() => parseMetadataWrite({ custom_metadata: { a: '' } }))).toBe(
      '1 error occurred:\n\t* custom_metadata validation failed: length of value for key "a" is 0 but must be 0 < len(value) <= 512\n\n',
    );
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect(messageOf(() => parseMetadataWrite({ custom_metadata: many }))).toContain(
      'payload must contain at most 64 keys, provided 65',
    );
    expect(messageOf(() => parseMetadataWrite({ custom_metadata: { 'k\u0007': 'v\u0000' } }))).toMatch(
      /^2 errors occurred/,
    );
    expect(messageOf(() => parseMetadataWrite({ delete_version_after: '-1s' }))).toBe(
      'delete_version_after cannot be negative',
    );
  });

  it('merge-patches custom_metadata, null removing a key', () => {
    expect(parseMetadataPatch({ custom_metadata: { a: null, c: '3' } }, { a: '1', b: '2' })).toEqual({
      customMetadata: { b: '2', c: '3' },
    });
    expect(parseMetadataPatch({ max_versions: 3 }, { a: '1' })).toEqual({ maxVersions: 3 });
  });
});
