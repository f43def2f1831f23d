import { ConcurrencyError, isConflict, retryOnConflict } from './concurrency';
import { parseNumeric, parseSafeInteger } from './type-parsers';

describe('retryOnConflict', () => {
  it('retries on ConcurrencyError only, up to the given attempts', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(
        async () => {
          calls += 1;
          if (calls < 3) throw new ConcurrencyError('s', 1, 2);
          return 'ok';
        },
        { attempts: 3 },
      ),
    ).resolves.toBe('ok');

    calls = 0;
    await expect(
      retryOnConflict(
        async () => {
          calls += 1;
          throw new ConcurrencyError('s', 1, 2);
        },
        { attempts: 2 },
      ),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(calls).toBe(2);

    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls += 1;
        throw new Error('other');
      }),
    ).rejects.toThrow('other');
    expect(calls).toBe(1);
  });

  it('retries a unique violation of the named constraints only', async () => {
    const violation = (constraint: string) => Object.assign(new Error('dup'), { code: '23505', constraint });
    let calls = 0;
    await expect(
      retryOnConflict(
        async () => {
          calls += 1;
          if (calls < 2) throw violation('things_pk');
          return 'ok';
        },
        { uniqueConstraints: ['things_pk'] },
      ),
    ).resolves.toBe('ok');
    expect(isConflict(violation('other_pk'), ['things_pk'])).toBe(false);
    expect(isConflict(new ConcurrencyError('s', 1, 2))).toBe(true);
  });

  it('describes the conflict', () => {
    expect(new ConcurrencyError('kv/a', 0, 3).message).toBe('stream kv/a: expected version 0, found 3');
    expect(new ConcurrencyError('kv/a', 'any', undefined).message).toContain('a concurrent append won');
  });
});

describe('integer parsing', () => {
  it('keeps safe integers and refuses the rest', () => {
    expect(parseSafeInteger('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseSafeInteger('-9007199254740991')).toBe(-Number.MAX_SAFE_INTEGER);
    expect(() => parseSafeInteger('9007199254740992')).toThrow(RangeError);
    expect(parseNumeric('42')).toBe(42);
    expect(parseNumeric('1.25')).toBe(1.25);
    expect(() => parseNumeric('123456789012345678901234')).toThrow(RangeError);
  });
});
