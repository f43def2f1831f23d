import { slug, uniqueName, uniqueSubjectPrefix } from './names';
import { waitFor } from './wait';

describe('waitFor', () => {
  it('resolves with the first truthy value', async () => {
    let n = 0;
    await expect(waitFor(() => (++n >= 3 ? n : 0), { intervalMs: 1 })).resolves.toBe(3);
  });

  it('treats a throwing predicate as "not yet" and reports its last error on time-out', async () => {
    let calls = 0;
    const ok = await waitFor(
      () => {
        calls += 1;
        if (calls < 3) throw new Error('not yet');
        return 'done';
      },
      { intervalMs: 1 },
    );
    expect(ok).toBe('done');
    await expect(
      waitFor(
        () => {
          throw new Error('still failing');
        },
        { timeoutMs: 30, intervalMs: 5 },
      ),
    ).rejects.toThrow(/timed out after 30 ms: still failing/);
  });

  it('reports the last value on time-out', async () => {
    await expect(waitFor(async () => false, { timeoutMs: 20, message: 'ready' })).rejects.toThrow(
      'ready: timed out after 20 ms (last value: false)',
    );
  });
});

describe('names', () => {
  it('slugs labels to safe identifiers', () => {
    expect(slug('Event Store!')).toBe('event_store');
    expect(slug('---')).toBe('x');
    expect(slug('a'.repeat(50), 10)).toBe('aaaaaaaaaa');
  });

  it('makes unique names and NATS-safe subject prefixes', () => {
    const a = uniqueName('kv');
    expect(a).not.toBe(uniqueName('kv'));
    expect(a).toMatch(/^kv_\d+_[0-9a-z]+_\d+[0-9a-f]{4}$/);
    const prefix = uniqueSubjectPrefix('kv transport');
    expect(prefix).toMatch(/^t-kv-transport-[A-Za-z0-9-]+$/);
    expect(prefix).not.toMatch(/[.*> ]/);
  });
});
