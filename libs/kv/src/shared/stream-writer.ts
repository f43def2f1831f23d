import { Injectable } from '@nestjs/common';
import { retryOnConflict, type RetryOptions } from '@coffer/event-store';
import { KV_CREATION_CONSTRAINTS } from './kv.table';

/** Hot keys see many conflicts between replicas: more tries than the default, with jitter. */
const RETRY: RetryOptions = { attempts: 20, uniqueConstraints: KV_CREATION_CONSTRAINTS };

/**
 * Runs a read-decide-append cycle for one stream at a time within this process. Optimistic
 * concurrency alone would let N concurrent writers of a hot key conflict N-1 times each; queueing
 * them here leaves conflicts only between replicas, which retryOnConflict absorbs.
 */
@Injectable()
export class StreamWriter {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(stream: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(stream) ?? Promise.resolve();
    const next = previous.then(
      () => retryOnConflict(fn, RETRY),
      () => retryOnConflict(fn, RETRY),
    );
    this.tails.set(stream, next);
    const cleanup = () => {
      if (this.tails.get(stream) === next) this.tails.delete(stream);
    };
    next.then(cleanup, cleanup);
    return next;
  }
}
