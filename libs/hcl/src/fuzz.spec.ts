import fc from 'fast-check';
import type { HclBody, HclExpression, HclItem, Position } from './ast';
import { HclParseError, parseHcl, parseHclJson, printHcl } from './index';

const P: Position = { line: 0, column: 0, offset: 0 };

/** Drops positions and the informational heredoc marker so trees can be compared structurally. */
function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'pos' || k === 'heredoc') continue;
      out[k] = strip(v);
    }
    return out;
  }
  return node;
}

const anyText = fc.string({ unit: 'binary', maxLength: 12 });
const identifier = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_.-]{0,8}$/);
const key = fc.oneof(identifier, anyText);

const numberExpr: fc.Arbitrary<HclExpression> = fc
  .oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  )
  .filter((n) => !Object.is(n, -0))
  .map((n) => ({ type: 'Number', value: n, raw: String(n), pos: P }));

const { body } = fc.letrec<{ body: HclBody; item: HclItem; expr: HclExpression }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyText.map((value): HclExpression => ({ type: 'String', value, pos: P })),
    numberExpr,
    fc.boolean().map((value): HclExpression => ({ type: 'Bool', value, pos: P })),
    fc.array(tie('expr'), { maxLength: 4 }).map((items): HclExpression => ({ type: 'List', items, pos: P })),
    tie('body').map((b): HclExpression => ({ type: 'Object', body: b, pos: P })),
  ),
  item: fc.oneof(
    { depthSize: 'small' },
    fc.record({ key, value: tie('expr') }).map(({ key: k, value }): HclItem => ({
      type: 'Attribute',
      key: k,
      value,
      pos: P,
    })),
    fc
      .record({ key, labels: fc.array(anyText, { maxLength: 3 }), body: tie('body') })
      .map(({ key: k, labels, body: b }): HclItem => ({ type: 'Block', key: k, labels, body: b, pos: P })),
  ),
  body: fc.array(tie('item'), { maxLength: 4 }).map((items): HclBody => ({ type: 'Body', items, pos: P })),
}));

/** Text built from HCL-ish fragments, to reach deeper parser states than random characters do. */
const hclish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        '=',
        ',',
        ':',
        '"',
        '\\',
        '\n',
        ' ',
        '#',
        '//',
        '/*',
        '*/',
        '<<',
        '<<-',
        'EOF',
        'path',
        '"secret/*"',
        'true',
        '-',
        '1',
        '0x',
        '.5',
        'e9',
        '\\u',
        '\\U',
        'null',
        '😀',
      ),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

function onlyParseErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof HclParseError)) throw e;
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(e.column).toBeGreaterThanOrEqual(1);
  }
}

describe('fuzz', () => {
  it('random input either parses or fails with HclParseError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), hclish), (text) => {
        onlyParseErrors(() => parseHcl(text));
        onlyParseErrors(() => parseHclJson(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('printed-then-parsed generated trees are unchanged', () => {
    fc.assert(
      fc.property(body, (tree) => {
        const printed = printHcl(tree);
        expect(strip(parseHcl(printed))).toEqual(strip(tree));
      }),
      { numRuns: 300 },
    );
  });
});
