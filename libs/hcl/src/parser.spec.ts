import { HclParseError, hclToObject, parseHcl, parseHclJson, looksLikeJson } from './index';
import type { HclAttribute, HclBlock } from './ast';

const obj = (text: string) => hclToObject(parseHcl(text));

function parseError(text: string, json = false): HclParseError {
  try {
    if (json) parseHclJson(text);
    else parseHcl(text);
  } catch (e) {
    expect(e).toBeInstanceOf(HclParseError);
    return e as HclParseError;
  }
  throw new Error('expected a parse error');
}

describe('parseHcl', () => {
  it('parses an empty document', () => {
    expect(parseHcl('').items).toEqual([]);
    expect(parseHcl('  \n# only a comment\n// another\n/* and\n a block */\n').items).toEqual([]);
  });

  it('handles all three comment styles', () => {
    expect(obj('a = 1 # hash\nb = 2 // slashes\n/* multi\nline */ c = 3')).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('parses attributes of every literal type', () => {
    expect(obj('s = "x"\ni = 42\nneg = -7\nf = 1.25\ne = 1e3\nh = 0x1F\nt = true\nfa = false')).toEqual({
      s: 'x',
      i: 42,
      neg: -7,
      f: 1.25,
      e: 1000,
      h: 31,
      t: true,
      fa: false,
    });
  });

  it('keeps the raw number text', () => {
    const a = parseHcl('n = -1.50e2').items[0] as HclAttribute;
    expect(a.value).toMatchObject({ type: 'Number', value: -150, raw: '-1.50e2' });
  });

  it('decodes string escapes and unicode', () => {
    expect(obj(String.raw`s = "a\"b\\c\nd\te\u00e9\U0001F600/\/"`).s).toBe('a"b\\c\nd\teé😀//');
    expect(obj('s = "naïve ☃ 😀"').s).toBe('naïve ☃ 😀');
    expect(obj('s = "${var.x} {{identity.entity.id}}"').s).toBe('${var.x} {{identity.entity.id}}');
  });

  it('parses blocks with zero, one and several labels, identifiers or strings', () => {
    const body = parseHcl('nats { url = "n" }\nlistener "tcp" {}\nstorage postgresql {}\na "b" c {}');
    const blocks = body.items as HclBlock[];
    expect(blocks.map((b) => [b.key, b.labels])).toEqual([
      ['nats', []],
      ['listener', ['tcp']],
      ['storage', ['postgresql']],
      ['a', ['b', 'c']],
    ]);
  });

  it('keeps order, labels and positions', () => {
    const body = parseHcl('path "a" {\n  capabilities = ["read"]\n}\n\npath "b" {}\n');
    expect(body.items.map((i) => [i.key, i.pos.line, i.pos.column])).toEqual([
      ['path', 1, 1],
      ['path', 5, 1],
    ]);
    const inner = (body.items[0] as HclBlock).body.items[0] as HclAttribute;
    expect(inner.pos).toEqual({ line: 2, column: 3, offset: 13 });
    expect(inner.value.pos).toMatchObject({ line: 2, column: 18 });
  });

  it('parses lists with trailing commas, newlines and nesting', () => {
    expect(obj('l = [\n  1,\n  "two",\n  [true],\n  { a = 1 },\n]\ne = []')).toEqual({
      l: [1, 'two', [true], { a: 1 }],
      e: [],
    });
  });

  it('parses object literals separated by newlines or commas', () => {
    expect(obj('o = { k = "v", "k2" = [], k3 = { x = 1 } }')).toEqual({
      o: { k: 'v', k2: [], k3: { x: 1 } },
    });
    expect(obj('o = {\n  a = 1\n  b = 2\n}')).toEqual({ o: { a: 1, b: 2 } });
    expect(obj('o = {}')).toEqual({ o: {} });
  });

  it('accepts commas between top-level items and several items per line (HCL v1)', () => {
    expect(obj('a = 1, b = 2 c = 3')).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('parses heredocs', () => {
    expect(obj('h = <<EOF\nline 1\n  line 2\nEOF\n').h).toBe('line 1\n  line 2\n');
    expect(obj('h = <<EOF\nEOF').h).toBe('');
    expect(obj('h = <<-EOT\n    a\n      b\n    EOT\nafter = 1')).toEqual({ h: 'a\n  b\n', after: 1 });
    // not every line is indented as far as the marker: kept as written
    expect(obj('h = <<-EOT\n    a\n  b\n    EOT').h).toBe('    a\n  b\n');
    expect(obj('h = <<EOF\r\nwin\r\nEOF\r\n').h).toBe('win\n');
    const attr = parseHcl('h = <<-EOF\nx\nEOF').items[0] as HclAttribute;
    expect(attr.value).toMatchObject({ type: 'String', heredoc: { marker: 'EOF', indented: true } });
  });

  it('accepts identifiers with dots and dashes as keys', () => {
    expect(obj('a.b-c_d = 1')).toEqual({ 'a.b-c_d': 1 });
  });

  it('counts columns in code points', () => {
    const e = parseError('s = "😀😀" x');
    expect(e.column).toBe(11);
  });

  describe('errors carry line, column and a clear reason', () => {
    it.each([
      ['a = "abc', 1, 5, 'unterminated string'],
      ['a = "abc\n"', 1, 5, 'unterminated string'],
      ['\n\n  key "label"', 3, 14, "expected '{' after block labels, found end of input"],
      ['key ]', 1, 5, "expected '=' or '{' after key, found ']'"],
      ['key', 1, 4, "expected '=' or '{' after key, found end of input"],
      ['a = ', 1, 5, 'expected a value, found end of input'],
      ['a = }', 1, 5, "expected a value, found '}'"],
      ['a = bare', 1, 5, "unexpected identifier 'bare' (strings must be quoted)"],
      ['a = [1 2]', 1, 8, "expected ',' or ']' after list element, found number 2"],
      ['a = [1,', 1, 8, "expected ']' to close the '[' opened at 1:5"],
      ['b {\n a = 1\n', 3, 1, "expected '}' to close the '{' opened at 1:3"],
      ['}', 1, 1, "unexpected '}'"],
      ['= 1', 1, 1, "expected a key, found '='"],
      ['a = 1 /* open', 1, 7, 'unterminated comment'],
      ['a = "\\q"', 1, 6, "invalid escape sequence '\\q'"],
      ['a = "\\u12"', 1, 6, "invalid unicode escape sequence '\\u12\"'"],
      ['a = "\\U00110000"', 1, 6, "invalid unicode code point '\\U00110000'"],
      ['a = 10s', 1, 5, 'invalid number "10s"'],
      ['a = <<EOF\nnever closed\n', 1, 5, "unterminated heredoc: missing closing marker 'EOF'"],
      ['a = <<EOF x\nEOF', 1, 5, 'heredoc marker must be followed by a newline'],
      ['a = <<\nEOF', 1, 5, 'heredoc marker expected after "<<"'],
      ['a = @', 1, 5, "illegal character '@'"],
      ['a = "x" = 2', 1, 9, "expected a key, found '='"],
      ['a "x" = 2', 1, 7, "expected '{' after block labels, found '='"],
    ])('%j', (text, line, column, reason) => {
      const e = parseError(text);
      expect([e.line, e.column, e.reason]).toEqual([line, column, reason]);
      expect(e.message).toBe(`At ${line}:${column}: ${reason}`);
    });
  });

  it('rejects absurd nesting with a parse error instead of overflowing the stack', () => {
    const e = parseError(`a = ${'['.repeat(10_000)}`);
    expect(e.reason).toMatch(/nesting deeper than/);
  });
});

describe('parseHclJson', () => {
  it('parses JSON into the same expression tree with positions', () => {
    const v = parseHclJson(
      '{\n  "path": {"secret/foo": {"capabilities": ["read"]}},\n  "n": null, "x": -1.5\n}',
    );
    expect(v.type).toBe('Object');
    if (v.type !== 'Object') return;
    expect(hclToObject(v.body)).toEqual({
      path: { 'secret/foo': { capabilities: ['read'] } },
      n: null,
      x: -1.5,
    });
    expect(v.body.items[1]?.pos).toMatchObject({ line: 3, column: 3 });
  });

  it('parses arrays and scalars at the top level', () => {
    expect(parseHclJson('[1, "a", true, false, null, [], {}]')).toMatchObject({ type: 'List' });
    expect(parseHclJson('"s"')).toMatchObject({ type: 'String', value: 's' });
  });

  it.each([
    ['{"a": 1,}', 1, 9, "expected a string key, found '}'"],
    ['{"a" 1}', 1, 6, "expected ':' after object key, found number 1"],
    ['{a: 1}', 1, 2, "expected a string key, found identifier 'a'"],
    ['[1,]', 1, 4, "expected a JSON value, found ']'"],
    ['[1 2]', 1, 4, "expected ',' or ']' in array, found number 2"],
    ['{"a": 1} x', 1, 10, "unexpected identifier 'x' after the JSON value"],
    ['{"a": tru}', 1, 7, "unexpected identifier 'tru'"],
    ['{"a": "x', 1, 7, 'unterminated string'],
    ['', 1, 1, 'expected a JSON value, found end of input'],
  ])('error %j', (text, line, column, reason) => {
    const e = parseError(text, true);
    expect([e.line, e.column, e.reason]).toEqual([line, column, reason]);
  });

  it('detects the JSON form', () => {
    expect(looksLikeJson('  \n{"path": {}}')).toBe(true);
    expect(looksLikeJson('path "x" {}')).toBe(false);
  });
});
