export interface WaitForOptions {
  /** default 5000 */
  timeoutMs?: number;
  /** default 20 */
  intervalMs?: number;
  /** prefix of the time-out error */
  message?: string;
}

/**
 * Polls `predicate` until it returns a truthy value (resolved with it) or the deadline passes.
 * A predicate that throws counts as "not yet" (so `expect(...)` can be polled); on time-out the
 * last error, or the last value, is reported.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  opts: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const intervalMs = opts.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
      lastValue = value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(1, Math.min(intervalMs, deadline - Date.now()))),
    );
  }
  const prefix = opts.message ?? 'waitFor';
  if (lastError instanceof Error) {
    lastError.message = `${prefix}: timed out after ${timeoutMs} ms: ${lastError.message}`;
    throw lastError;
  }
  throw new Error(`${prefix}: timed out after ${timeoutMs} ms (last value: ${String(lastValue)})`);
}

/** Resolves once GET `url` answers `status` (default 200); defaults suit a process that is starting. */
export async function waitForHttp(
  url: string,
  opts: WaitForOptions & { status?: number } = {},
): Promise<void> {
  const expected = opts.status ?? 200;
  await waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status !== expected) throw new Error(`status ${res.status}`);
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 100, message: `waiting for ${url} to answer ${expected}`, ...opts },
  );
}

/**
 * An instant between two changes, for a history question "as of then": returns once the clock
 * has moved past it, so the next change is recorded strictly after it (polls the clock, no sleep).
 */
export async function historyInstant(): Promise<string> {
  const at = new Date().toISOString();
  while (Date.now() <= Date.parse(at)) await new Promise((resolve) => setImmediate(resolve));
  return at;
}
