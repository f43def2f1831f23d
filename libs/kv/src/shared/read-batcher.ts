import { context, type Context } from '@opentelemetry/api';
import { inBatchSpan } from '@coffer/event-store';

interface Waiting<R> {
  resolve(row: R | undefined): void;
  reject(error: unknown): void;
  /** the reading request's trace context: the batch's span links to it */
  ctx: Context;
}

/**
 * Coalesces point reads issued in the same event-loop turn into one batched query. Under load
 * every request arrives in its own I/O callback, and one query per request made the socket
 * writes and per-statement work of Postgres the largest cost of a read; one query for every read
 * of a turn (flushed in `setImmediate`, right after that turn's I/O callbacks) costs a single
 * round trip. A lone read waits for nothing but the end of its own turn.
 *
 * `load(keys)` answers one entry per key, in order (undefined: not found). A failed load fails
 * every read of that batch with the same error. The query runs under a span of its own
 * (`name`), linked to every request it served (see inBatchSpan).
 *
 * `oneInFlight`: reads issued while a load runs wait for it to finish and then go as one batch
 * (as group commit does), instead of one load per turn. Where the loads queue for one
 * connection anyway (PGlite), requests rarely share a turn, but many arrive during one load.
 */
export class ReadBatcher<K, R> {
  private keys: K[] = [];
  private waiting: Waiting<R>[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(
    private readonly load: (keys: readonly K[]) => Promise<ReadonlyArray<R | undefined>>,
    private readonly maxBatch = 256,
    private readonly name = 'kv read batch',
    private readonly opts: { oneInFlight?: boolean } = {},
  ) {}

  read(key: K): Promise<R | undefined> {
    return new Promise<R | undefined>((resolve, reject) => {
      this.keys.push(key);
      this.waiting.push({ resolve, reject, ctx: context.active() });
      if (this.keys.length >= this.maxBatch) this.flush();
      else if (!(this.opts.oneInFlight === true && this.inFlight)) this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.keys.length === 0) return;
    const keys = this.keys;
    const waiting = this.waiting;
    this.keys = [];
    this.waiting = [];
    const contexts = waiting.map((w) => w.ctx);
    this.inFlight = true;
    inBatchSpan(this.name, contexts, {}, () => this.load(keys))
      .then(
        (rows) => waiting.forEach((w, i) => w.resolve(rows[i])),
        (error: unknown) => waiting.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.inFlight = false;
        if (this.keys.length > 0) this.schedule();
      });
  }
}
