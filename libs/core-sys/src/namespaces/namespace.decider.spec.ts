import {
  childrenOf,
  decideCreate,
  decideDeleteStart,
  decidePatch,
  evolveTree,
  fullNamespacePath,
  namespaceSegments,
  parentOf,
  type NamespaceRecord,
} from './namespace.decider';

const ns = (path: string, extra: Partial<NamespaceRecord> = {}): NamespaceRecord => ({
  id: path.slice(0, 5),
  path,
  customMetadata: {},
  deleting: false,
  unlockKeyHash: null,
  ...extra,
});
const create = (
  tree: NamespaceRecord[],
  path: string,
  parentMounts: string[] = [],
  meta?: Record<string, string>,
) => decideCreate(tree, { path, customMetadata: meta, parentMounts, newId: () => 'AbCd1' });

describe('namespace paths', () => {
  it('normalise relative paths to full paths with a trailing slash', () => {
    expect(fullNamespacePath('', 'ns1')).toBe('ns1/');
    expect(fullNamespacePath('ns1/', '/ns2/ns3/')).toBe('ns1/ns2/ns3/');
    expect(parentOf('ns1/ns2/')).toBe('ns1/');
    expect(parentOf('ns1/')).toBe('');
  });

  it.each(['', '/', '..', 'a/../b', 'sys', 'root', 'auth', 'with space', 'a%2f', 'a\\b'])(
    'refuses %j',
    (raw) => {
      expect(() => namespaceSegments(raw)).toThrow();
    },
  );
});

describe('decideCreate', () => {
  it('creates a top-level namespace and a child of an existing one', () => {
    expect(create([], 'ns1/')).toEqual({
      type: 'NamespaceCreated',
      data: { id: 'AbCd1', path: 'ns1/', customMetadata: {} },
    });
    expect(create([ns('ns1/')], 'ns1/ns2/')?.type).toBe('NamespaceCreated');
  });

  it('needs a live parent', () => {
    expect(() => create([], 'ns1/ns2/')).toThrow(/parent namespace "ns1\/" does not exist/);
    expect(() => create([ns('ns1/', { deleting: true })], 'ns1/ns2/')).toThrow(/does not exist/);
  });

  it('refuses a name a mount of the parent uses', () => {
    expect(() => create([], 'secret/', ['secret/', 'sys/'])).toThrow(/in use by a mount/);
    expect(() => create([], 'team/', ['team/kv/'])).toThrow(/in use by a mount/);
    expect(create([], 'team/', ['teams/'])?.type).toBe('NamespaceCreated');
  });

  it('answers an existing namespace, setting its metadata when given', () => {
    expect(create([ns('ns1/')], 'ns1/')).toBeUndefined();
    expect(create([ns('ns1/')], 'ns1/', [], { a: '1' })).toEqual({
      type: 'NamespaceMetadataSet',
      data: { path: 'ns1/', customMetadata: { a: '1' } },
    });
    expect(() => create([ns('ns1/', { deleting: true })], 'ns1/')).toThrow(/being deleted/);
  });
});

describe('decidePatch', () => {
  it('merges custom metadata; null removes a key', () => {
    const tree = [ns('ns1/', { customMetadata: { a: '1', b: '2' } })];
    expect(decidePatch(tree, 'ns1/', { a: null, c: '3' })).toEqual({
      type: 'NamespaceMetadataSet',
      data: { path: 'ns1/', customMetadata: { b: '2', c: '3' } },
    });
    expect(() => decidePatch(tree, 'ns1/', { a: 1 })).toThrow(/must be strings/);
    expect(() => decidePatch(tree, 'nope/', {})).toThrow();
  });
});

describe('decideDeleteStart', () => {
  it('refuses a namespace with children, resumes an interrupted deletion, ignores a missing one', () => {
    const tree = [ns('ns1/'), ns('ns1/ns2/'), ns('ns10/')];
    expect(() => decideDeleteStart(tree, 'ns1/')).toThrow(/containing child namespaces/);
    expect(decideDeleteStart(tree, 'ns10/')).toEqual({
      type: 'NamespaceDeletionStarted',
      data: { path: 'ns10/' },
    });
    expect(decideDeleteStart([ns('x/', { deleting: true })], 'x/')).toBe('resume');
    expect(decideDeleteStart(tree, 'nope/')).toBeUndefined();
  });
});

describe('the tree', () => {
  it('folds events and lists direct live children', () => {
    let tree: NamespaceRecord[] = [];
    tree = evolveTree(tree, { type: 'NamespaceCreated', data: { id: 'a', path: 'a/', customMetadata: {} } });
    tree = evolveTree(tree, {
      type: 'NamespaceCreated',
      data: { id: 'b', path: 'a/b/', customMetadata: {} },
    });
    tree = evolveTree(tree, {
      type: 'NamespaceCreated',
      data: { id: 'c', path: 'a/b/c/', customMetadata: {} },
    });
    tree = evolveTree(tree, { type: 'NamespaceCreated', data: { id: 'd', path: 'd/', customMetadata: {} } });
    expect(childrenOf(tree, '').map((n) => n.path)).toEqual(['a/', 'd/']);
    expect(childrenOf(tree, 'a/').map((n) => n.path)).toEqual(['a/b/']);
    tree = evolveTree(tree, { type: 'NamespaceDeletionStarted', data: { path: 'd/' } });
    expect(childrenOf(tree, '').map((n) => n.path)).toEqual(['a/']);
    tree = evolveTree(tree, { type: 'NamespaceDeleted', data: { path: 'd/' } });
    expect(tree.map((n) => n.path)).toEqual(['a/', 'a/b/', 'a/b/c/']);
  });
});
