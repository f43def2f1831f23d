import { parsePolicy } from './policy.parser';
import { compileAcl } from './acl';
import { rebasePath, rebasePolicy } from './policy-rebase';

describe('rebasing an ancestor namespace policy onto a token below it', () => {
  it('strips the namespaces in between, keeps globs and + segments that reach below', () => {
    expect(rebasePath('ns2/secret/data/x', 'ns2/')).toBe('secret/data/x');
    expect(rebasePath('/ns2/secret/*', 'ns2/')).toBe('secret/*');
    expect(rebasePath('a/b/kv/+/x', 'a/b/')).toBe('kv/+/x');
    expect(rebasePath('+/secret/data/x', 'ns2/')).toBe('secret/data/x');
    expect(rebasePath('*', 'ns2/')).toBe('*');
    expect(rebasePath('ns*', 'ns2/')).toBe('*');
    expect(rebasePath('ns2/', 'ns2/')).toBe('');
    expect(rebasePath('anything', '')).toBe('anything');
  });

  it('drops paths of the ancestor itself, of siblings, and bare + segments', () => {
    expect(rebasePath('secret/data/x', 'ns2/')).toBeUndefined();
    expect(rebasePath('sib/secret/data/x', 'ns2/')).toBeUndefined();
    expect(rebasePath('ns2', 'ns2/')).toBeUndefined();
    expect(rebasePath('+', 'ns2/')).toBeUndefined();
    expect(rebasePath('nx*', 'ns2/')).toBeUndefined();
  });

  it('grants through the compiled ACL what the policy grants below the ancestor', () => {
    const policy = parsePolicy(
      'team',
      `path "kid/secret/data/*" { capabilities = ["read"] }
       path "secret/data/*" { capabilities = ["read", "update"] }`,
    );
    const acl = compileAcl([rebasePolicy(policy, 'kid/')]);
    expect(acl.allowOperation({ path: 'secret/data/x', operation: 'read' }).allowed).toBe(true);
    expect(acl.allowOperation({ path: 'secret/data/x', operation: 'update' }).allowed).toBe(false);
  });
});
