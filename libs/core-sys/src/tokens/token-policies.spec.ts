import { tokenContracts, tokenCreateBodySchema } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import { combinedPolicies, isSubset, sanitizePolicies } from './token-policies';
import { generateAccessor, generateToken, randomBase62, TokenHasher, tokenFromHeaders } from './token-crypto';
import { createParamsOf } from './token.decider';

const createParams = (raw: Record<string, unknown>) => createParamsOf(parsedBody(tokenContracts.create, raw));
/** TypeCommaStringSlice, as the create body reads `policies`. */
const stringList = (raw: unknown) => tokenCreateBodySchema.shape.policies.parse(raw);

describe('sanitizePolicies', () => {
  it('trims, lower-cases, drops empties, sorts and dedupes', () => {
    expect(sanitizePolicies([' Web', 'ops', 'web', ''], false)).toEqual(['ops', 'web']);
  });

  it('adds default on request, once', () => {
    expect(sanitizePolicies(['web'], true)).toEqual(['default', 'web']);
    expect(sanitizePolicies(['default', 'web'], true)).toEqual(['default', 'web']);
    expect(sanitizePolicies([], true)).toEqual(['default']);
  });

  it('lets root swallow everything', () => {
    expect(sanitizePolicies(['web', 'ROOT', 'ops'], true)).toEqual(['root']);
  });
});

describe('policy lists', () => {
  it('checks subsets', () => {
    expect(isSubset(['a', 'b'], ['a'])).toBe(true);
    expect(isSubset(['a'], ['a', 'b'])).toBe(false);
    expect(isSubset(['a'], [])).toBe(true);
  });

  it('parses arrays and comma strings', () => {
    expect(stringList('a, b,,c')).toEqual(['a', 'b', 'c']);
    expect(stringList(['a', ' b '])).toEqual(['a', 'b']);
    expect(stringList(undefined)).toBeUndefined();
    expect(stringList('')).toEqual([]);
  });

  it('combines token and identity policies', () => {
    expect(combinedPolicies(['web', 'default'], ['ops', 'web'])).toEqual(['default', 'ops', 'web']);
  });
});

describe('token material', () => {
  it('generates Vault-shaped tokens and accessors', () => {
    const t = generateToken();
    expect(t).toMatch(/^hvs\.[0-9A-Za-z]{32}$/);
    expect(generateAccessor()).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(new Set(Array.from({ length: 100 }, () => randomBase62(8))).size).toBe(100);
  });

  it('hashes and refs with keys derived from the salt, distinct and stable', () => {
    const h = new TokenHasher(Buffer.alloc(32, 7));
    const other = new TokenHasher(Buffer.alloc(32, 8));
    expect(h.hash('hvs.x')).toBe(h.hash('hvs.x'));
    expect(h.hash('hvs.x')).not.toBe(other.hash('hvs.x'));
    expect(h.ref('hvs.x')).not.toBe(h.hash('hvs.x'));
    expect(h.matches('hvs.x', h.hash('hvs.x'))).toBe(true);
    expect(h.matches('hvs.y', h.hash('hvs.x'))).toBe(false);
    expect(h.matches('hvs.x', 'abcd')).toBe(false);
  });

  it('reads the client token from the forwarded headers', () => {
    expect(tokenFromHeaders({ 'x-service-token': 'a' })).toBe('a');
    expect(tokenFromHeaders({ 'x-vault-token': 'b' })).toBe('b');
    expect(tokenFromHeaders({ authorization: 'Bearer c' })).toBe('c');
    expect(tokenFromHeaders({ authorization: 'Basic c' })).toBeUndefined();
    expect(tokenFromHeaders({})).toBeUndefined();
  });
});

describe('createParamsOf', () => {
  it('decodes weakly with Vault defaults', () => {
    expect(
      createParams({
        ttl: '1h',
        num_uses: '3',
        renewable: 'false',
        policies: 'a,b',
        meta: { k: 'v' },
        no_parent: 1,
      }),
    ).toEqual({
      id: undefined,
      policies: ['a', 'b'],
      meta: { k: 'v' },
      noParent: true,
      noDefaultPolicy: false,
      renewable: false,
      batch: false,
      ttl: 3600,
      explicitMaxTtl: 0,
      displayName: undefined,
      numUses: 3,
      period: 0,
    });
    expect(createParams({}).renewable).toBe(true);
    expect(createParams({ lease: '30m' }).ttl).toBe(1800);
  });

  it('answers Vault texts for bad values', () => {
    expect(() => createParams({ num_uses: -1 })).toThrow('number of uses cannot be negative');
    expect(() => createParams({ ttl: '-5s' })).toThrow('ttl must be positive');
    expect(() => createParams({ ttl: 'soon' })).toThrow('time: invalid duration "soon"');
    expect(() => createParams({ type: 'weird' })).toThrow("invalid 'token_type' value");
    expect(() => createParams({ type: 'batch', num_uses: 2 })).toThrow(
      'batch tokens cannot have "num_uses" set',
    );
    expect(() => createParams({ type: 'batch', period: '1h' })).toThrow(
      'batch tokens cannot have "period" set',
    );
    expect(createParams({ type: 'batch', renewable: true })).toMatchObject({ batch: true, renewable: false });
    expect(() => createParams({ renewable: 'maybe' })).toThrow("cannot parse 'renewable' as bool");
  });
});
