import { runJob } from './job-span';

/**
 * Background work every service repeats on a timer (token sweeps, cubbyhole sweeps, keyring
 * sync and refresh): one run at a time, failures reported and the loop going on, a timer that
 * never keeps the process alive, and a stop that waits for the run in flight.
 */
export interface IntervalLoopOptions {
  /** ms between runs; 0 or less never runs */
  intervalMs: number;
  /** one pass; a tick while the previous pass still runs is skipped */
  run: () => Promise<unknown>;
  /** names the pass's span (`job <name>`), e.g. "token sweep"; "interval job" by default */
  name?: string;
  /** a failed pass (say what went wrong, never the data); the next tick tries again */
  onError: (error: unknown) => void;
}

export class IntervalLoop {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(private readonly opts: IntervalLoopOptions) {}

  /** Starts ticking (again); the first pass runs one interval from now. */
  start(): void {
    if (this.#timer || this.opts.intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.tick(), this.opts.intervalMs);
    this.#timer.unref();
  }

  /** Stops ticking and resolves once the pass in flight, if any, has finished. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Runs a pass now unless one is running; resolves when that pass is over (never rejects). */
  tick(): Promise<void> {
    this.#running ??= runJob(this.opts.name ?? 'interval job', this.opts.run)
      .then(
        () => undefined,
        (error: unknown) => this.opts.onError(error),
      )
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }
}
