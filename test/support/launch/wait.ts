import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** what is awaited, for the error message */
  what?: string;
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or the deadline passes.
 * The last error thrown by the probe is kept for the failure message.
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 100, what = 'condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await delay(intervalMs);
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** Resolves once GET `url` answers `status` (default 200). */
export async function waitForHttp(url: string, opts: WaitOptions & { status?: number } = {}): Promise<void> {
  const expected = opts.status ?? 200;
  await waitUntil(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status !== expected) throw new Error(`status ${res.status}`);
      return true;
    },
    { what: `${url} to answer ${expected}`, ...opts },
  );
}
