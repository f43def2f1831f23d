import type { KeyPairRecord } from '../keys/key-material';
import {
  decideAssignment,
  decideClient,
  decideKey,
  decideProvider,
  decideScope,
  decodeTemplate,
  rotateKey,
  validIssuer,
} from './oidc-config.decider';
import type { KeyState } from './oidc-config.state';

let n = 0;
const fakePair = (alg: KeyState['algorithm']): KeyPairRecord => ({ kid: `k${++n}`, alg, jwk: { kty: 'EC' } });
const T0 = 1_700_000_000_000;

const created = (): KeyState => {
  const d = decideKey(undefined, {}, T0, [], fakePair);
  if (!d.ok) throw new Error(d.error);
  return d.state;
};

describe('decideKey', () => {
  it("takes Vault's defaults on create: RS256, 24h rotation and verification, no client", () => {
    const key = created();
    expect(key).toMatchObject({
      algorithm: 'RS256',
      rotationPeriod: 86400,
      verificationTtl: 86400,
      allowedClientIds: [],
      nextRotationMs: T0 + 86400_000,
      retired: [],
    });
    expect(key.current.kid).not.toBe(key.next.kid);
  });

  it.each([
    [{ rotation_period: 59 }, 'rotation_period must be at least one minute'],
    [
      { rotation_period: 60, verification_ttl: 601 },
      'verification_ttl cannot be longer than 10x rotation_period',
    ],
    [{ algorithm: 'HS256' }, 'unknown signing algorithm "HS256"'],
  ])('refuses %j', (body, error) => {
    expect(decideKey(undefined, body, T0, [], fakePair)).toEqual({ ok: false, error });
  });

  it('keeps the keypairs on update, moves the next rotation only earlier', () => {
    const key = created();
    const later = decideKey(key, { rotation_period: 3600, verification_ttl: 3600 }, T0 + 1000, [], fakePair);
    expect(later.ok && later.state.current).toEqual(key.current);
    expect(later.ok && later.state.nextRotationMs).toBe(T0 + 1000 + 3600_000);
    const longer = decideKey(key, { rotation_period: 7 * 86400 }, T0 + 1000, [], fakePair);
    expect(longer.ok && longer.state.nextRotationMs).toBe(key.nextRotationMs);
  });

  it('refuses a verification TTL below the id_token_ttl of a client using the key', () => {
    expect(decideKey(created(), { verification_ttl: 60 }, T0, [3600], fakePair, 'k')).toEqual({
      ok: false,
      error:
        'unable to update key "k" because it is currently referenced by one or more clients with an id_token_ttl greater than 60 seconds',
    });
  });

  it('on a new algorithm, generates new keypairs and keeps the old ones verifiable', () => {
    const key = created();
    const d = decideKey(key, { algorithm: 'ES256' }, T0, [], fakePair);
    expect(d.ok && d.state.retired.map((r) => r.kid)).toEqual([key.current.kid, key.next.kid]);
    expect(d.ok && d.state.current.alg).toBe('ES256');
  });
});

describe('rotateKey', () => {
  it('promotes next, retires current for the verification TTL, drops expired retired keys', () => {
    const key = created();
    const once = rotateKey(key, T0 + 10, fakePair('RS256'));
    expect(once.current).toEqual(key.next);
    expect(once.retired).toEqual([{ ...key.current, expiresAtMs: T0 + 10 + 86400_000 }]);
    expect(once.nextRotationMs).toBe(T0 + 10 + 86400_000);
    const overridden = rotateKey(once, T0 + 20, fakePair('RS256'), 0);
    expect(overridden.retired.map((r) => r.kid)).toEqual([key.current.kid]);
    const muchLater = rotateKey(once, T0 + 2 * 86400_000, fakePair('RS256'));
    expect(muchLater.retired.map((r) => r.kid)).toEqual([once.current.kid]);
  });
});

describe('decideScope', () => {
  it('stores a JSON template, plain or base64', () => {
    const plain = '{"email": {{identity.entity.metadata.email}}}';
    expect(decideScope('s', undefined, { template: plain })).toEqual({
      ok: true,
      state: { template: plain, description: '' },
    });
    const encoded = decideScope('s', undefined, { template: Buffer.from(plain).toString('base64') });
    expect(encoded.ok && encoded.state.template).toBe(plain);
    expect(decodeTemplate('not base64 {}')).toBe('not base64 {}');
  });

  it.each([
    ['{"a": {{identity.entity.id}}', /^error parsing template JSON: /],
    ['{"a": {{identity.entity.id}}}}', /^error parsing template: unbalanced templating characters$/],
    ['[1, 2]', /^error parsing template JSON: the template is not a JSON object$/],
    ['{"nonce": "x"}', /^top level key "nonce" not allowed\. Restricted keys: iat, aud, exp, iss, sub/],
  ])('refuses %s', (template, error) => {
    const d = decideScope('s', undefined, { template });
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toMatch(error);
  });

  it('reserves the openid scope', () => {
    expect(decideScope('openid', undefined, {})).toEqual({
      ok: false,
      error: 'the "openid" scope name is reserved',
    });
  });
});

describe('decideProvider', () => {
  const templates: Record<string, string> = { a: '{"x": 1}', b: '{"x": 2}', c: '{"y": 1}' };
  const lookup = (name: string) => templates[name];

  it('checks the issuer (scheme, host, optional port only) and warns about it', () => {
    expect(validIssuer('https://example.com:8200')).toBe(true);
    expect(validIssuer('https://example.com/path')).toBe(false);
    expect(validIssuer('ftp://example.com')).toBe(false);
    const d = decideProvider(undefined, { issuer: 'https://example.com' }, lookup);
    expect(d.ok && d.warnings?.[0]).toMatch(/^If "issuer" is set explicitly/);
    expect(decideProvider(undefined, { issuer: 'https://x/y' }, lookup)).toEqual({
      ok: false,
      error:
        'invalid issuer, which must include only a scheme, host, and optional port (e.g. https://example.com:8200)',
    });
  });

  it('needs existing scopes and warns about conflicting claims', () => {
    expect(decideProvider(undefined, { scopes_supported: ['nope'] }, lookup)).toEqual({
      ok: false,
      error: 'scope "nope" does not exist',
    });
    const d = decideProvider(undefined, { scopes_supported: ['a', 'b', 'c', 'a'] }, lookup);
    expect(d.ok && d.state.scopesSupported).toEqual(['a', 'b', 'c']);
    expect(d.ok && d.warnings?.[0]).toMatch(
      /^Found scope templates with conflicting top-level keys: conflict "x"/,
    );
  });
});

describe('decideClient', () => {
  const facts = {
    keyVerificationTtl: (name: string) => (name === 'k' ? 3600 : undefined),
    assignmentExists: (name: string) => name === 'people',
    generateId: () => 'id',
    generateSecret: () => 'secret',
  };

  it('generates credentials once and defaults the TTLs to 24h (limited by the key)', () => {
    const d = decideClient(undefined, { key: 'k', id_token_ttl: 600 }, facts);
    expect(d).toEqual({
      ok: true,
      state: {
        key: 'k',
        redirectUris: [],
        assignments: [],
        idTokenTtl: 600,
        accessTokenTtl: 86400,
        clientId: 'id',
        clientSecret: 'secret',
      },
    });
    const again = d.ok ? decideClient(d.state, {}, { ...facts, generateId: () => 'other' }) : d;
    expect(again.ok && again.state.clientId).toBe('id');
  });

  it.each([
    [{}, 'the key parameter is required'],
    [{ key: 'x' }, 'key "x" does not exist'],
    [
      { key: 'k' },
      "a client's id_token_ttl cannot be greater than the verification_ttl of the key it references",
    ],
    [{ key: 'k', id_token_ttl: 60, assignments: ['gone'] }, 'assignment "gone" does not exist'],
  ])('refuses %j', (body, error) => {
    expect(decideClient(undefined, body, facts)).toEqual({ ok: false, error });
  });

  it('refuses another key on update', () => {
    const d = decideClient(undefined, { key: 'k', id_token_ttl: 60 }, facts);
    expect(d.ok && decideClient(d.state, { key: 'other' }, facts)).toEqual({
      ok: false,
      error: 'key modification is not allowed',
    });
  });
});

describe('decideAssignment', () => {
  it('lowercases the id part and dedupes', () => {
    expect(decideAssignment(undefined, { entity_ids: ['ABC', 'abc', 'DEF.NsX'], group_ids: ['G'] })).toEqual({
      ok: true,
      state: { entityIds: ['abc', 'def.NsX'], groupIds: ['g'] },
    });
  });
});
