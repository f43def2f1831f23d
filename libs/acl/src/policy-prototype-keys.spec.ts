import { compileAcl, parsePolicy, PolicyParseError } from './index';

/**
 * Names that are also members of Object.prototype, written by a policy author: they are invalid
 * policy values or ordinary paths and parameter names, never a 500 or a lost rule.
 */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const parseError = (text: string): PolicyParseError => {
  try {
    parsePolicy('p', text);
  } catch (e) {
    if (e instanceof PolicyParseError) return e;
    throw e;
  }
  throw new Error('parsed, expected a PolicyParseError');
};

describe('policy values named like Object.prototype members', () => {
  it.each(PROTOTYPE_NAMES)('policy = "%s" is an invalid policy (400), not an internal error', (name) => {
    const e = parseError(`path "secret/*" {\n  policy = "${name}"\n}`);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toBe(`failed to parse policy: path "secret/*": invalid policy "${name}"`);
  });

  it.each(PROTOTYPE_NAMES)('capabilities = ["%s"] is an invalid capability', (name) => {
    const e = parseError(`path "secret/*" { capabilities = ["${name}"] }`);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toBe(`failed to parse policy: path "secret/*": invalid capability "${name}"`);
  });

  it('the JSON form refuses them too', () => {
    const e = parseError(JSON.stringify({ path: { 'secret/*': { policy: 'constructor' } } }));
    expect(e.message).toContain('invalid policy "constructor"');
  });

  it('the legacy values still work', () => {
    const p = parsePolicy('p', 'path "a" { policy = "read" }\npath "b" { policy = "deny" }');
    expect(p.paths.map((x) => x.capabilities)).toEqual([['read', 'list'], ['deny']]);
  });
});

describe('paths and parameters named like Object.prototype members', () => {
  it.each(PROTOTYPE_NAMES)('"%s" is an ordinary exact and glob path', (name) => {
    const acl = compileAcl([
      parsePolicy(
        'p',
        `path "${name}" { capabilities = ["read"] }\npath "${name}/*" { capabilities = ["update"] }`,
      ),
    ]);
    expect(acl.allowOperation({ path: name, operation: 'read' }).allowed).toBe(true);
    expect(acl.allowOperation({ path: name, operation: 'update' }).allowed).toBe(false);
    expect(acl.allowOperation({ path: `${name}/x`, operation: 'update' }).allowed).toBe(true);
    expect(acl.capabilities(name)).toEqual(['read']);
    const resultant = acl.resultant();
    expect(Object.keys(resultant.exact_paths ?? {})).toEqual([name]);
    expect(Object.keys(resultant.glob_paths ?? {})).toEqual([`${name}/`]);
    expect(Object.getOwnPropertyDescriptor(resultant.exact_paths, name)?.value).toEqual({
      capabilities: ['read'],
    });
  });

  it.each(PROTOTYPE_NAMES)('"%s" as a path segment under + wildcards and in the JSON form', (name) => {
    const text = JSON.stringify({ path: { [`secret/+/${name}`]: { capabilities: ['read'] } } });
    const acl = compileAcl([parsePolicy('p', text)]);
    expect(acl.allowOperation({ path: `secret/a/${name}`, operation: 'read' }).allowed).toBe(true);
    expect(acl.allowOperation({ path: 'secret/a/other', operation: 'read' }).allowed).toBe(false);
  });

  it.each(PROTOTYPE_NAMES)('"%s" is an ordinary parameter name', (name) => {
    const acl = compileAcl([
      parsePolicy(
        'p',
        `path "secret/x" {
           capabilities = ["update"]
           allowed_parameters = { "${name}" = ["ok"], "other" = [] }
           denied_parameters = { "${name}" = ["bad"] }
         }`,
      ),
    ]);
    const params = (value: string): Record<string, unknown> => {
      const p: Record<string, unknown> = {};
      Object.defineProperty(p, name, { value, enumerable: true });
      return p;
    };
    const allowed = (p: Record<string, unknown>) =>
      acl.allowOperation({ path: 'secret/x', operation: 'update', params: p }).allowed;
    expect(allowed(params('ok'))).toBe(true);
    expect(allowed(params('bad'))).toBe(false);
    expect(allowed(params('else'))).toBe(false);
    expect(allowed({ other: 'anything' })).toBe(true);
    const resultant = acl.resultant().exact_paths?.['secret/x'];
    // parameter names are case-insensitive, kept lower-cased
    expect(Object.getOwnPropertyDescriptor(resultant?.allowed_parameters, name.toLowerCase())?.value).toEqual(
      ['ok'],
    );
  });

  it('a required parameter named "constructor" is not satisfied by the prototype', () => {
    const acl = compileAcl([
      parsePolicy(
        'p',
        'path "secret/x" {\n capabilities = ["update"]\n required_parameters = ["constructor"]\n}',
      ),
    ]);
    expect(acl.allowOperation({ path: 'secret/x', operation: 'update', params: { a: '1' } }).allowed).toBe(
      false,
    );
    expect(
      acl.allowOperation({ path: 'secret/x', operation: 'update', params: { constructor: '1' } }).allowed,
    ).toBe(true);
  });
});
