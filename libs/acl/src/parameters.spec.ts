import type { Operation } from '@coffer/contracts';
import { compileAcl, parsePolicy } from './index';

const acl = (texts: string[]) => compileAcl(texts.map((t, i) => parsePolicy(`p${i}`, t)));
const allowed = (
  a: ReturnType<typeof acl>,
  path: string,
  operation: Operation,
  params?: Record<string, unknown>,
) => a.allowOperation({ path, operation, params }).allowed;

describe('parameter constraints', () => {
  const a = acl([
    `path "secret/restricted" {
        capabilities = ["create", "update", "read", "delete", "list"]
        required_parameters = ["name", "id"]
        allowed_parameters = { "name" = [], "id" = [], "bar" = ["zip", "zap*"], "*" = [] }
        denied_parameters = { "token_policies" = [], "role" = ["admin", "*root"] }
      }`,
  ]);
  const ok = { name: 'n', id: 1 };

  it('required parameters must be present', () => {
    expect(
      a.allowOperation({ path: 'secret/restricted', operation: 'create', params: { name: 'n' } }),
    ).toMatchObject({
      allowed: false,
      deniedReason: 'parameters',
    });
    expect(allowed(a, 'secret/restricted', 'create', ok)).toBe(true);
  });

  it('denied wins over allowed ("*")', () => {
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, token_policies: 'x' })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, Token_Policies: 'x' })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, role: 'admin' })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, role: 'superroot' })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, role: 'reader' })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, role: ['reader', 'admin'] })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, role: 'reader, admin' })).toBe(false);
  });

  it('allowed value lists restrict values, with globs', () => {
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, bar: 'zip' })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, bar: 'zapper' })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, bar: 'zop' })).toBe(false);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, bar: ['zip', 'zap'] })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, bar: 'zip,zap1' })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'update', { ...ok, other: 'any' })).toBe(true);
  });

  it('are not checked for delete and list', () => {
    expect(allowed(a, 'secret/restricted', 'delete', { token_policies: 'x' })).toBe(true);
    expect(allowed(a, 'secret/restricted', 'list')).toBe(true);
  });

  it('are checked for read', () => {
    expect(allowed(a, 'secret/restricted', 'read', {})).toBe(false);
  });

  it('without "*", unknown keys are refused', () => {
    const b = acl(['path "s" {\n capabilities = ["update"]\n allowed_parameters = { a = [] }\n}']);
    expect(allowed(b, 's', 'update', { a: 1 })).toBe(true);
    expect(allowed(b, 's', 'update', { a: 1, b: 2 })).toBe(false);
    expect(allowed(b, 's', 'update', {})).toBe(true);
  });

  it('denied "*" refuses any data', () => {
    const b = acl(['path "s" {\n capabilities = ["update"]\n denied_parameters = { "*" = [] }\n}']);
    expect(allowed(b, 's', 'update', {})).toBe(true);
    expect(allowed(b, 's', 'update', { a: 1 })).toBe(false);
  });
});
