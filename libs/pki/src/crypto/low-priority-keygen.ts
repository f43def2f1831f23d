import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

// Runs in the worker thread. On Linux, setpriority(PRIO_PROCESS, 0) applies to the calling
// thread only, so nice 19 lowers this thread and nothing else of the process. Plain JS evaluated
// by the worker: it must not depend on the TypeScript loader of the host process.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { generateKeyPairSync } = require('node:crypto');
try { require('node:os').setPriority(19); } catch {}
parentPort.on('message', ({ id, bits }) => {
  try {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
    parentPort.postMessage({ id, der: privateKey.export({ format: 'der', type: 'pkcs8' }) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Answer {
  id: number;
  der?: Uint8Array;
  error?: string;
}

/**
 * RSA key generation on a thread of its own at the lowest CPU priority (nice 19). A 2048-bit key
 * holds a core for ~150 ms; on the libuv pool at normal priority a burst of RSA issues took cores
 * from the gateway and the other engines sharing the node (KV p99 15 -> 24 ms under 20 concurrent
 * RSA issues). At nice 19 the scheduler gives this thread what the others leave (weight 15 vs
 * 1024), so RSA issues slow down under contention and everything else keeps its latency.
 */
export class LowPriorityKeygen {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (key: KeyObject) => void; reject: (e: Error) => void }
  >();

  generateRsa(bits: number): Promise<KeyObject> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<KeyObject>((resolve, reject) => {
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
    if (answer.der)
      waiter.resolve(createPrivateKey({ key: Buffer.from(answer.der), format: 'der', type: 'pkcs8' }));
    else waiter.reject(new Error(`RSA key generation failed: ${answer.error ?? 'unknown error'}`));
  }
}
