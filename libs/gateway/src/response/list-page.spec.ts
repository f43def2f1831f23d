import type { EngineResult } from './envelope';
import { pageListResult, pageOfKeys } from './list-page';

const answer = (data: Record<string, unknown> | null): EngineResult =>
  ({ kind: 'envelope', data, warnings: [], auth: null }) as unknown as EngineResult;

describe('paginated LIST', () => {
  const keys = ['b', 'a/', 'c', 'é', 'd', 'Z'];

  it('pages keys in byte order after a key, at most `limit`, with the next cursor', () => {
    expect(pageOfKeys(keys, undefined, 2)).toEqual({ keys: ['Z', 'a/'], next: 'a/' });
    expect(pageOfKeys(keys, 'a/', 2)).toEqual({ keys: ['b', 'c'], next: 'c' });
    expect(pageOfKeys(keys, 'c', 2)).toEqual({ keys: ['d', 'é'], next: null });
    expect(pageOfKeys(keys, 'é', 2)).toEqual({ keys: [], next: null });
    // a cursor that is no longer a key (deleted meanwhile) still lands between its neighbours
    expect(pageOfKeys(keys, 'bb', 10)).toEqual({ keys: ['c', 'd', 'é'], next: null });
    expect(pageOfKeys(keys, 'b', undefined)).toEqual({ keys: ['c', 'd', 'é'], next: null });
  });

  it('walks every key exactly once while keys are written and deleted between pages', () => {
    let live = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = pageOfKeys(live, after, 4);
      seen.push(...page.keys);
      // a write before the cursor and a delete after it, between two pages
      live = [...live.filter((k) => k !== 'k29'), `a${seen.length}`];
      if (page.next === null) break;
      after = page.next;
    }
    expect(seen).toEqual(Array.from({ length: 29 }, (_, i) => `k${String(i).padStart(2, '0')}`));
  });

  it('leaves answers without the parameters, and non-LIST answers, untouched', () => {
    const res = answer({ keys: ['b', 'a'] });
    expect(pageListResult(res, 'list', {})).toBe(res);
    expect(pageListResult(res, 'read', { limit: '1' })).toBe(res);
  });

  it('cuts key_info to the page and adds next', () => {
    const res = answer({ keys: ['x', 'y', 'z'], key_info: { x: { n: 1 }, y: { n: 2 }, z: { n: 3 } } });
    expect(pageListResult(res, 'list', { limit: '2' }).data).toEqual({
      keys: ['x', 'y'],
      key_info: { x: { n: 1 }, y: { n: 2 } },
      next: 'y',
    });
    expect(pageListResult(res, 'list', { after: 'y' }).data).toEqual({
      keys: ['z'],
      key_info: { z: { n: 3 } },
      next: null,
    });
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const limit of ['0', '-1', 'x', '1.5', ''])
      expect(() => pageListResult(answer({ keys: [] }), 'list', { limit })).toThrow(
        'limit must be a positive integer',
      );
  });
});
