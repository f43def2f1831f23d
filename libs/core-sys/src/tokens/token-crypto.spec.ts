import { namespaceSuffixOf, withNamespaceSuffix, withoutNamespaceSuffix } from './token-crypto';

describe('namespace suffixes of tokens and accessors (Vault SplitIDFromString)', () => {
  it('appends a non-root namespace id, nothing for the root', () => {
    expect(withNamespaceSuffix('hvs.abc', 'Xy12z')).toBe('hvs.abc.Xy12z');
    expect(withNamespaceSuffix('hvs.abc', undefined)).toBe('hvs.abc');
  });

  it('reads the suffix after the prefix, whatever the prefix', () => {
    expect(namespaceSuffixOf('hvs.abc.Xy12z')).toBe('Xy12z');
    expect(namespaceSuffixOf('hvb.body_-x.Xy12z')).toBe('Xy12z');
    expect(namespaceSuffixOf('s.abc.Xy12z')).toBe('Xy12z');
    expect(namespaceSuffixOf('accessor24chars.Xy12z')).toBe('Xy12z');
    expect(namespaceSuffixOf('my-token.Xy12z')).toBe('Xy12z');
  });

  it('finds none on root and landed tokens (a prefix dot is no suffix)', () => {
    expect(namespaceSuffixOf('hvs.abc')).toBeUndefined();
    expect(namespaceSuffixOf('hvb.abc')).toBeUndefined();
    expect(namespaceSuffixOf('root')).toBeUndefined();
    expect(namespaceSuffixOf('accessor')).toBeUndefined();
    expect(namespaceSuffixOf('hvs.abc.')).toBeUndefined();
  });

  it('strips the suffix', () => {
    expect(withoutNamespaceSuffix('hvb.body.Xy12z')).toBe('hvb.body');
    expect(withoutNamespaceSuffix('hvb.body')).toBe('hvb.body');
  });
});
