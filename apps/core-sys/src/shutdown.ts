// Identical in apps/dev, apps/core-sys and apps/kv (see service-host.ts).
export interface ShutdownLogger {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Resources register how to release themselves as they are created; shutdown releases them in
 * reverse order. Signal handlers are installed before anything starts, so a signal that arrives
 * during start-up (or right after the "ready" line) still shuts down cleanly.
 */
export class ShutdownSequence {
  private readonly steps: { name: string; run: () => Promise<void> | void }[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly logger: ShutdownLogger) {}

  /** Registers a step; steps run last-registered first. */
  add(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  /** Runs every step once, in reverse order; a failing step is reported and the rest still run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      const failures: string[] = [];
      for (const step of [...this.steps].reverse()) {
        try {
          await step.run();
        } catch (error) {
          failures.push(`${step.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (failures.length > 0) throw new Error(`shutdown failed: ${failures.join('; ')}`);
    })();
    return this.running;
  }

  /**
   * SIGINT / SIGTERM run the sequence and exit 0 (1 when a step failed); a second signal exits 1
   * at once.
   */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): void {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.started) {
          this.logger.error(`${signal} again: exiting without finishing the shutdown`);
          exit(1);
          return;
        }
        this.logger.log(`${signal}: shutting down`);
        this.run().then(
          () => exit(0),
          (error: unknown) => {
            this.logger.error(error instanceof Error ? error.message : String(error));
            exit(1);
          },
        );
      });
    }
  }
}
