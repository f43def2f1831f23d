import { hclToObject, parseHcl, parseHclJson } from './index';

/** Keys named like Object.prototype members are ordinary keys in both forms and in hclToObject. */
describe('keys named like Object.prototype members', () => {
  const NAMES = ['__proto__', 'constructor', 'toString'];

  it.each(NAMES)('HCL attribute and block "%s" become own keys', (name) => {
    const body = parseHcl(`${name} = "value"\nblock "${name}" { ${name} = 1 }`);
    expect(body.items.map((i) => i.key)).toEqual([name, 'block']);
    const plain = hclToObject(body);
    expect(Object.getOwnPropertyDescriptor(plain, name)?.value).toBe('value');
    expect(Object.getPrototypeOf(plain)).toBeNull();
    const [entry] = plain['block'] as { labels: string[]; body: Record<string, unknown> }[];
    expect(entry?.labels).toEqual([name]);
    expect(Object.getOwnPropertyDescriptor(entry?.body, name)?.value).toBe(1);
  });

  it.each(NAMES)('JSON object key "%s" stays a key', (name) => {
    const root = parseHclJson(`{"${name}": {"${name}": ["x"]}}`);
    if (root.type !== 'Object') throw new Error('expected an object');
    const plain = hclToObject(root.body);
    const inner = Object.getOwnPropertyDescriptor(plain, name)?.value as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(inner, name)?.value).toEqual(['x']);
  });
});
