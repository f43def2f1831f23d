import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

// Runs in the worker thread. On Linux, scheduling attributes belong to the thread: nice 19 and
// SCHED_IDLE set here lower this thread and nothing else of the process. The worker reports what it
// got (field 19 of /proc/thread-self/stat is the nice value, field 41 the policy: 5 = SCHED_IDLE).
// Plain JS evaluated by the worker: it must not depend on the TypeScript loader of the host process.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { generateKeyPairSync } = require('node:crypto');
const fs = require('node:fs');
try { require('node:os').setPriority(19); } catch {}
try {
  const tid = fs.readlinkSync('/proc/thread-self').split('/').pop();
  require('node:child_process').execFileSync('chrt', ['--idle', '-p', '0', tid], { stdio: 'ignore', timeout: 5000 });
} catch {}
let scheduling = { nice: null, policy: null };
try {
  const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  scheduling = { nice: Number(fields[16]), policy: Number(fields[38]) };
} catch {}
parentPort.on('message', ({ id, bits }) => {
  if (bits === 0) return parentPort.postMessage({ id, scheduling });
  try {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
    parentPort.postMessage({ id, der: privateKey.export({ format: 'der', type: 'pkcs8' }) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** The key generation thread's scheduling as Linux reports it (null where /proc is missing). */
export interface KeygenScheduling {
  nice: number | null;
  /** 0 SCHED_OTHER, 5 SCHED_IDLE */
  policy: number | null;
}

interface Answer {
  id: number;
  der?: Uint8Array;
  error?: string;
  scheduling?: KeygenScheduling;
}

/**
 * RSA key generation on a thread of its own at the lowest CPU priority. A 2048-bit key holds a
 * core for ~150 ms; on the libuv pool at normal priority a burst of RSA issues took cores from the
 * gateway and the other engines sharing the node (KV p99 15 -> 24 ms under 20 concurrent RSA
 * issues). At nice 19 the scheduler gives this thread what the others leave (weight 15 vs 1024),
 * but under EEVDF (Linux >= 6.6) a running nice-19 task may still finish its slice before a task
 * that wakes up gets the core, and a request crosses several processes that each wake up. A
 * SCHED_IDLE thread is preempted at once by any normal task that wakes, so it is set too (with
 * util-linux's `chrt`, as Node has no call for it; nice 19 alone where `chrt` is missing).
 */
export class LowPriorityKeygen {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (answer: Answer) => void; reject: (e: Error) => void }
  >();

  async generateRsa(bits: number): Promise<KeyObject> {
    const answer = await this.ask(bits);
    if (!answer.der) throw new Error(`RSA key generation failed: ${answer.error ?? 'unknown error'}`);
    return createPrivateKey({ key: Buffer.from(answer.der), format: 'der', type: 'pkcs8' });
  }

  /** How the thread is scheduled (starts it if needed). */
  scheduling(): Promise<KeygenScheduling> {
    return this.ask(0).then((answer) => answer.scheduling ?? { nice: null, policy: null });
  }

  /** `bits` 0 asks for the thread's scheduling instead of a key. */
  private ask(bits: number): Promise<Answer> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // a waiting job keeps the process alive; an idle worker does not
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, bits });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (answer: Answer) => this.settle(answer));
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`key generation thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(answer: Answer): void {
    const waiter = this.pending.get(answer.id);
    if (!waiter) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.worker?.unref();
    waiter.resolve(answer);
  }
}
