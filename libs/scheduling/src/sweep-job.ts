import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IntervalLoop } from './interval-loop';

/**
 * A Nest provider that runs `sweep()` on a timer from application start to shutdown (token,
 * secret-id and cubbyhole sweeps). A failed pass is logged as a warning with its message only
 * (never the data it was working on); the next tick tries again. Tests call `sweep()` directly.
 */
export abstract class SweepJob implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  readonly #loop: IntervalLoop;

  /** `what` names the pass in warnings, e.g. "token sweep". */
  protected constructor(loggerName: string, what: string, intervalMs: number) {
    this.logger = new Logger(loggerName);
    this.#loop = new IntervalLoop({
      name: what,
      intervalMs,
      run: () => this.sweep(),
      onError: (error) =>
        this.logger.warn(`${what} failed: ${error instanceof Error ? error.message : 'unknown error'}`),
    });
  }

  /** One pass; answers how many things it removed. */
  abstract sweep(): Promise<number>;

  onApplicationBootstrap(): void {
    this.#loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#loop.stop();
  }
}
