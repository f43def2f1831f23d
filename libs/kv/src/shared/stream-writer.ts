import { Injectable } from '@nestjs/common';
import { isConflict, retryOnConflict, type AppendLink, type RetryOptions } from '@coffer/event-store';
import { KV_CREATION_CONSTRAINTS } from './kv.table';

/** Hot keys see many conflicts between replicas: more tries than the default, with jitter. */
const RETRY: RetryOptions = { attempts: 20, uniqueConstraints: KV_CREATION_CONSTRAINTS };
const ATTEMPTS = 20;

/** A pipelined write's decision, handed to the next write of its stream. */
export interface Decided<S> {
  /** the decision state after this write, as if it had committed */
  state: S;
  /** this write's append, which the next one is appended `after` */
  link: AppendLink;
}

/** What a pipelined write gives back once it has decided and submitted its append. */
export interface Submitted<S, T> {
  /** the state after it for the next write; undefined when unknown (the next write loads) */
  next: S | undefined;
  link: AppendLink;
  /** settles when the append committed (or failed) */
  done: Promise<T>;
}

interface Tail<S> {
  /** the last write's decision (undefined: none to build on), once it decided */
  decided: Promise<Decided<S> | undefined>;
  /** the last write, committed or failed */
  done: Promise<unknown>;
}

const settled = (p: Promise<unknown>): Promise<void> =>
  p.then(
    () => undefined,
    () => undefined,
  );

/**
 * Orders the writes of one stream within this process. Optimistic concurrency alone would let N
 * concurrent writers of a hot key conflict N-1 times each; queueing them here leaves conflicts
 * only between replicas, which the retries absorb.
 *
 * `run` serialises whole read-decide-append cycles: each waits for the previous write to commit.
 * `pipeline` serialises decisions only: a write decides on the state the previous write leaves
 * (without reading it back) and appends after it (AppendOptions.after), so a hot key's writers
 * share one group-commit batch instead of one batch each. A write builds on its predecessor only
 * while that one still waits for a batch; once the predecessor is being committed, the write waits
 * for it and loads the committed state, so a decision never rests on state older than the
 * batch before (the same window as a load right before the append). If the predecessor fails, the
 * append fails with ConcurrencyError and the write is decided again on fresh state.
 */
@Injectable()
export class StreamWriter {
  private readonly tails = new Map<string, Tail<unknown>>();

  run<T>(stream: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(stream);
    const done = (previous ? settled(previous.done) : Promise.resolve()).then(() =>
      retryOnConflict(fn, RETRY),
    );
    this.push(stream, { decided: settled(done).then(() => undefined), done });
    return done;
  }

  /** `decide(prior)`: prior is the previous write's decision, or undefined (load the state). */
  async pipeline<S, T>(
    stream: string,
    decide: (prior: Decided<S> | undefined) => Promise<Submitted<S, T>>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pipelineOnce(stream, decide);
      } catch (error) {
        if (!isConflict(error, KV_CREATION_CONSTRAINTS) || attempt >= ATTEMPTS) throw error;
        // queued again behind the writes decided meanwhile: no pause needed to stay apart
      }
    }
  }

  private pipelineOnce<S, T>(
    stream: string,
    decide: (prior: Decided<S> | undefined) => Promise<Submitted<S, T>>,
  ): Promise<T> {
    const previous = this.tails.get(stream) as Tail<S> | undefined;
    let markDecided: (d: Decided<S> | undefined) => void = () => undefined;
    const decided = new Promise<Decided<S> | undefined>((resolve) => (markDecided = resolve));
    const done = (async () => {
      let prior = previous ? await previous.decided : undefined;
      if (previous && prior?.link.state !== 'queued') {
        await settled(previous.done);
        prior = undefined;
      }
      let submitted: Submitted<S, T>;
      try {
        submitted = await decide(prior);
      } catch (error) {
        markDecided(undefined);
        throw error;
      }
      markDecided(submitted.next === undefined ? undefined : { state: submitted.next, link: submitted.link });
      return submitted.done;
    })();
    this.push(stream, { decided, done });
    return done;
  }

  private push(stream: string, tail: Tail<unknown>): void {
    this.tails.set(stream, tail);
    const cleanup = () => {
      if (this.tails.get(stream) === tail) this.tails.delete(stream);
    };
    tail.done.then(cleanup, cleanup);
  }
}
