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

/**
 * Runs a process's start-up under a fresh ShutdownSequence whose signal handlers are installed
 * before anything starts. When start-up fails, what it created is released and the process
 * exits 1; when a signal interrupted it, the signal's shutdown already owns the exit.
 */
export async function runWithShutdown(
  logger: ShutdownLogger,
  start: (shutdown: ShutdownSequence) => Promise<void>,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<void> {
  const shutdown = new ShutdownSequence(logger);
  shutdown.installSignalHandlers(exit);
  try {
    await start(shutdown);
  } catch (error) {
    if (shutdown.started) return;
    logger.error(
      `start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    await shutdown.run().catch(() => undefined);
    exit(1);
  }
}

/** For main.ts: runs the entry point; an error nothing else handled is printed and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
