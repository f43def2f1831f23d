import { createServer } from 'node:net';

// Ports are handed out below Linux's ephemeral range (32768–60999 by default). A port taken from
// that range with listen(0) and released again can be grabbed, before the child process binds it,
// by any outgoing connection on the machine (a pg or NATS client's local port) — CI lost a cluster
// start to exactly that (EADDRINUSE on a service's ops port). Below the range only listeners
// compete, and each jest worker gets its own slice, so two workers never race for one port.
const RANGE_START = 12_000;
const SLICE_SIZE = 2_500;
const SLICES = 8;
const handedOut = new Set<number>();
let cursor: number | undefined;

function workerSlice(): number {
  const id = Number.parseInt(process.env['JEST_WORKER_ID'] ?? '0', 10);
  return Number.isFinite(id) ? id % SLICES : 0;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 right now and not handed out before by this process: tests bind
 * it later (often in a child process), so the same port is never given twice.
 */
export async function freePort(): Promise<number> {
  const base = RANGE_START + workerSlice() * SLICE_SIZE;
  // A random start keeps consecutive test files of one worker (fresh module state each) apart.
  cursor ??= Math.floor(Math.random() * SLICE_SIZE);
  for (let tries = 0; tries < SLICE_SIZE; tries++) {
    const port = base + (cursor % SLICE_SIZE);
    cursor = (cursor + 1) % SLICE_SIZE;
    if (handedOut.has(port)) continue;
    if (await canBind(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port left in ${base}–${base + SLICE_SIZE - 1}`);
}
