import { DomainError } from '@coffer/contracts';
import { DEFAULT_JSON_LIMITS, JsonLimitScanner, type JsonLimits } from './json-limits';

const limits = (over: Partial<JsonLimits>): JsonLimits => ({ ...DEFAULT_JSON_LIMITS, ...over });

/** The refusal for `text` fed whole, byte by byte and split at every point: always the same. */
function refusal(text: string, l: JsonLimits): string | undefined {
  const bytes = Buffer.from(text);
  const run = (pieces: Buffer[]): string | undefined => {
    const scanner = new JsonLimitScanner(l);
    try {
      for (const piece of pieces) scanner.feed(piece);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).message;
    }
  };
  const whole = run([bytes]);
  expect(run([...bytes].map((b) => Buffer.from([b])))).toBe(whole);
  for (let cut = 1; cut < bytes.length; cut++) {
    expect(run([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(whole);
  }
  return whole;
}

describe('JsonLimitScanner', () => {
  it('counts nesting depth, not brackets inside strings', () => {
    expect(refusal('{"a":{"b":[1]}}', limits({ maxDepth: 3 }))).toBeUndefined();
    expect(refusal('{"a":{"b":[[1]]}}', limits({ maxDepth: 3 }))).toMatch(/nesting depth.*max_json_depth/);
    expect(refusal('{"a":"[[[[{{{{"}', limits({ maxDepth: 1 }))).toBeUndefined();
  });

  it('measures strings, keys included, with escapes as written', () => {
    expect(refusal('{"abcd":"wxyz"}', limits({ maxStringValueLength: 4 }))).toBeUndefined();
    expect(refusal('{"abcde":1}', limits({ maxStringValueLength: 4 }))).toMatch(/string value.*length/);
    expect(refusal('["a\\"b"]', limits({ maxStringValueLength: 4 }))).toBeUndefined();
    expect(refusal('["a\\"bc"]', limits({ maxStringValueLength: 4 }))).toMatch(/string value/);
  });

  it('counts object entries and array elements per container', () => {
    const l = limits({ maxObjectEntryCount: 2, maxArrayElementCount: 3 });
    expect(refusal('{"a":[1,2,3],"b":{"c":1,"d":","}}', l)).toBeUndefined();
    expect(refusal('{"a":1,"b":2,"c":3}', l)).toMatch(/object exceeds allowed entry count/);
    expect(refusal('[1,[1,2,3],3,{}]', l)).toMatch(/array exceeds allowed element count/);
    expect(refusal('[[],[],[]]', l)).toBeUndefined();
    expect(refusal('{ }', l)).toBeUndefined();
  });

  it('leaves malformed JSON to JSON.parse', () => {
    expect(refusal('{"a":', limits({}))).toBeUndefined();
    expect(refusal(']]]', limits({}))).toBeUndefined();
  });
});
