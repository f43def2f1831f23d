import { createHash } from 'node:crypto';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import {
  basicCredentials,
  bearerToken,
  codeChallengeOf,
  parseScopes,
  pkceVerified,
  redirectUriAllowed,
  validChallenge,
} from './oauth-rules';

describe('redirectUriAllowed (exact match only)', () => {
  const registered = ['https://app.example.com/callback', 'http://127.0.0.1:8250/oidc/callback'];

  it.each(registered)('allows the registered %s', (uri) =>
    expect(redirectUriAllowed(uri, registered)).toBe(true),
  );

  it.each([
    ['trailing slash', 'https://app.example.com/callback/'],
    ['suffix', 'https://app.example.com/callback.evil.com'],
    ['path suffix', 'https://app.example.com/callbackx'],
    ['host case', 'https://APP.example.com/callback'],
    ['path case', 'https://app.example.com/CALLBACK'],
    ['userinfo', 'https://attacker@app.example.com/callback'],
    ['encoded characters', 'https://app.example.com/%63allback'],
    ['another port', 'https://app.example.com:8443/callback'],
    ['explicit default port', 'https://app.example.com:443/callback'],
    ['localhost for 127.0.0.1', 'http://localhost:8250/oidc/callback'],
    ['loopback with another port', 'http://127.0.0.1:9999/oidc/callback'],
    ['query added', 'https://app.example.com/callback?next=/'],
    ['fragment added', 'https://app.example.com/callback#x'],
    ['scheme downgrade', 'http://app.example.com/callback'],
    ['not a URL', 'callback'],
    ['empty', ''],
  ])('refuses a near miss: %s', (_why, uri) => expect(redirectUriAllowed(uri, registered)).toBe(false));
});

describe('PKCE', () => {
  const verifier = generateRandomCodeVerifier();
  let challenge = '';
  beforeAll(async () => {
    challenge = await calculatePKCECodeChallenge(verifier);
  });

  it('computes the S256 challenge as a relying party does (oauth4webapi), plain as the verifier', () => {
    expect(codeChallengeOf(verifier, 'S256')).toBe(challenge);
    expect(codeChallengeOf(verifier, 'plain')).toBe(verifier);
  });

  it('verifies the verifier, never the challenge itself (a downgrade to plain)', () => {
    expect(pkceVerified(verifier, challenge, 'S256')).toBe(true);
    expect(pkceVerified(challenge, challenge, 'S256')).toBe(false);
    expect(pkceVerified(verifier, verifier, 'plain')).toBe(true);
    expect(pkceVerified(`${verifier}x`, challenge, 'S256')).toBe(false);
  });

  it('accepts challenges of 43 to 128 characters', () => {
    expect(validChallenge('a'.repeat(42))).toBe(false);
    expect(validChallenge('a'.repeat(43))).toBe(true);
    expect(validChallenge('a'.repeat(128))).toBe(true);
    expect(validChallenge('a'.repeat(129))).toBe(false);
    expect(createHash('sha256').update('x').digest('base64url')).toHaveLength(43);
  });
});

describe('client authentication and bearer headers', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

  it('URL-decodes the id and secret of client_secret_basic (RFC 6749 section 2.3.1)', () => {
    expect(basicCredentials(basic('my%20id:s%3Acret+x'))).toEqual({ id: 'my id', secret: 's:cret x' });
    expect(basicCredentials(basic('id:pa:ss'))).toEqual({ id: 'id', secret: 'pa:ss' });
    expect(basicCredentials(`basic ${Buffer.from('a:b').toString('base64')}`)).toEqual({
      id: 'a',
      secret: 'b',
    });
  });

  it('answers undefined for other schemes and malformed values', () => {
    expect(basicCredentials(undefined)).toBeUndefined();
    expect(basicCredentials('Bearer abc')).toBeUndefined();
    expect(basicCredentials(basic('no-colon'))).toBeUndefined();
    expect(basicCredentials(basic('%zz:x'))).toBeUndefined();
  });

  it('reads a bearer token', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('parseScopes', () => {
  it('splits on spaces, dedupes and sorts', () => {
    expect(parseScopes('openid  profile openid email')).toEqual(['email', 'openid', 'profile']);
    expect(parseScopes('')).toEqual([]);
  });
});
