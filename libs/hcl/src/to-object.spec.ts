import { HclParseError, hclToObject, parseHcl, printHcl } from './index';

describe('hclToObject', () => {
  it('turns blocks into arrays of { labels, body }, repeated blocks appended in order', () => {
    const text = `
      listener "tcp" { address = "127.0.0.1:8200" }
      listener "tcp" { address = "127.0.0.1:9203", purpose = "ops" }
      storage "postgresql" {}
      nats { url = "nats://127.0.0.1:4222" }
      cluster_secret = "s"
    `;
    expect(hclToObject(parseHcl(text))).toEqual({
      listener: [
        { labels: ['tcp'], body: { address: '127.0.0.1:8200' } },
        { labels: ['tcp'], body: { address: '127.0.0.1:9203', purpose: 'ops' } },
      ],
      storage: [{ labels: ['postgresql'], body: {} }],
      nats: [{ labels: [], body: { url: 'nats://127.0.0.1:4222' } }],
      cluster_secret: 's',
    });
  });

  it('converts blocks nested inside object literals with the same rules', () => {
    expect(hclToObject(parseHcl('o = { inner "x" { a = 1 } }'))).toEqual({
      o: { inner: [{ labels: ['x'], body: { a: 1 } }] },
    });
  });

  it('rejects duplicate attributes, pointing at the second one', () => {
    try {
      hclToObject(parseHcl('a = 1\n  a = 2'));
      throw new Error('expected an error');
    } catch (e) {
      expect(e).toBeInstanceOf(HclParseError);
      expect((e as HclParseError).message).toBe("At 2:3: duplicate attribute 'a' (first defined at 1:1)");
    }
  });

  it('rejects a key used both as attribute and block', () => {
    expect(() => hclToObject(parseHcl('a = 1\na {}'))).toThrow("block has the same name as attribute 'a'");
    expect(() => hclToObject(parseHcl('a {}\na = 1'))).toThrow("attribute has the same name as a block 'a'");
  });

  it('is safe against prototype keys', () => {
    const o = hclToObject(parseHcl('"__proto__" = { polluted = true }\nconstructor = 1'));
    expect(Object.keys(o)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('printHcl', () => {
  it('prints a readable document that parses back', () => {
    const text =
      'path "secret/*" {\n  capabilities = ["read", "list"]\n  allowed_parameters = {\n    "*" = []\n  }\n}\n';
    expect(printHcl(parseHcl(text))).toBe(text);
  });

  it('quotes keys that are not identifiers and escapes control characters', () => {
    const printed = printHcl(parseHcl('"a b" = "x\\u0001\\n"\n"true" = 1'));
    expect(printed).toBe('"a b" = "x\\u0001\\n"\n"true" = 1\n');
  });
});
