import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileSentinel, type SentinelInput } from './index';

/**
 * Every example of docs/policies.md, run: each ```sentinel block is followed by a ```json block
 * of inputs it must pass and fail. (Reads the document from the repository: the examples are the
 * document's, not copies.)
 */
const doc = readFileSync(path.join(__dirname, '../../../docs/policies.md'), 'utf8');

interface Cases {
  passes: Record<string, unknown>[];
  fails: Record<string, unknown>[];
}

const blocks = [...doc.matchAll(/```(sentinel|json)\n([\s\S]*?)```/g)].map((m) => ({
  lang: m[1] as string,
  text: m[2] as string,
}));
const examples: { title: string; source: string; cases: Cases }[] = [];
const titles = [...doc.matchAll(/^### (.+)$/gm)].map((m) => m[1] as string);
blocks.forEach((b, i) => {
  if (b.lang !== 'sentinel') return;
  const next = blocks[i + 1];
  if (next?.lang !== 'json') throw new Error(`docs/policies.md: example ${examples.length + 1} has no cases`);
  examples.push({
    title: titles.at(-blocks.slice(i).filter((x) => x.lang === 'sentinel').length) ?? `#${examples.length}`,
    source: b.text,
    cases: JSON.parse(next.text) as Cases,
  });
});

const toInput = (c: Record<string, unknown>): SentinelInput => ({
  ...c,
  now: new Date(typeof c['now'] === 'string' ? c['now'] : '2026-11-24T12:00:00Z'),
});

describe('docs/policies.md examples', () => {
  it('has examples, each with passing and failing cases', () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
    for (const e of examples) {
      expect(e.cases.passes.length).toBeGreaterThan(0);
      expect(e.cases.fails.length).toBeGreaterThan(0);
    }
  });

  it.each(examples.map((e) => [e.title, e] as const))('%s', (_title, e) => {
    const policy = compileSentinel(e.source);
    for (const c of e.cases.passes) {
      expect({ input: c, ...policy.evaluate(toInput(c)) }).toMatchObject({ input: c, passed: true });
    }
    for (const c of e.cases.fails) {
      expect({ input: c, passed: policy.evaluate(toInput(c)).passed }).toEqual({ input: c, passed: false });
    }
  });

  it('the language overview block parses', () => {
    const overview = /## The language[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(overview).toContain('main = rule when');
    expect(() => compileSentinel(overview)).not.toThrow();
  });
});
