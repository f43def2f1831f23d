import { DomainError, sysContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import { PolicyParseError } from '@coffer/acl';
import { decideDelete, decideWrite, decodePolicyText, listKeys, normalisePolicyName } from './policy.decider';

const body = (raw: Record<string, unknown>) => parsedBody(sysContracts.policyWrite, raw);

const HCL = 'path "secret/*" {\n  capabilities = ["read", "list"]\n}\n';

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('policy names', () => {
  it('are lower-cased and trimmed', () => {
    expect(normalisePolicyName(' Dev-Team ')).toBe('dev-team');
    expect(decideWrite('MyPolicy', body({ policy: HCL }), false).event.data.name).toBe('mypolicy');
  });
});

describe('decodePolicyText', () => {
  it('decodes base64 of a valid policy', () => {
    expect(decodePolicyText('p', Buffer.from(HCL).toString('base64'))).toBe(HCL);
  });

  it('keeps text that is not base64, not UTF-8 or not a policy once decoded', () => {
    expect(decodePolicyText('p', HCL)).toBe(HCL);
    expect(decodePolicyText('p', Buffer.from([0xff, 0xfe, 0xfd]).toString('base64'))).toBe('//79');
    expect(decodePolicyText('p', 'abcd')).toBe('abcd');
  });
});

describe('decideWrite', () => {
  it('stores the decoded policy', () => {
    const decision = decideWrite('p', body({ policy: Buffer.from(HCL).toString('base64') }), false);
    expect(decision).toEqual({
      event: { type: 'PolicyWritten', data: { name: 'p', policy: HCL } },
      warnings: [],
    });
  });

  it('requires a policy', () => {
    expect(errorOf(() => decideWrite('p', body({}), false)).message).toBe(
      "'policy' parameter not supplied or empty",
    );
    expect(errorOf(() => decideWrite('p', body({ rules: HCL }), false)).message).toBe(
      "'policy' parameter not supplied or empty",
    );
  });

  it('accepts legacy rules with a deprecation warning', () => {
    const decision = decideWrite('p', body({ rules: HCL }), true);
    expect(decision.event.data).toEqual({ name: 'p', policy: HCL });
    expect(decision.warnings).toEqual(["'rules' is deprecated, please use 'policy' instead"]);
  });

  it('reports parse errors with line and column', () => {
    const e = errorOf(() =>
      decideWrite('p', body({ policy: 'path "secret/*" {\n  capabilities = ["read"\n' }), false),
    );
    expect(e).toBeInstanceOf(PolicyParseError);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toMatch(/^failed to parse policy: /);
    expect((e as PolicyParseError).line).toBeGreaterThanOrEqual(2);
    expect((e as PolicyParseError).column).toBeGreaterThan(0);
  });

  it('refuses to change root', () => {
    expect(errorOf(() => decideWrite('Root', body({ policy: HCL }), false)).message).toBe(
      'cannot update root policy',
    );
  });
});

describe('decideDelete', () => {
  it('refuses root and default, ignores missing policies', () => {
    expect(errorOf(() => decideDelete('root', true)).message).toBe('cannot delete root policy');
    expect(errorOf(() => decideDelete('DEFAULT', true)).message).toBe('cannot delete default policy');
    expect(decideDelete('gone', false)).toBeUndefined();
    expect(decideDelete('Dev', true)).toEqual({ type: 'PolicyDeleted', data: { name: 'dev' } });
  });
});

describe('listKeys', () => {
  it('sorts stored names and appends root', () => {
    expect(listKeys(['web', 'default', 'app'])).toEqual(['app', 'default', 'web', 'root']);
  });
});
