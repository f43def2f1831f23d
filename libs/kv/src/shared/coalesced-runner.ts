/**
 * Runs an idempotent job on request, coalescing concurrent requests: each caller's promise
 * settles when a run that started after its request has finished, with at most one run going
 * and one queued whatever the number of callers.
 */
export class CoalescedRunner {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly job: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const queued = this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    this.queued = queued;
    return queued;
  }

  private startQueued(): Promise<void> {
    this.queued = null;
    return this.start();
  }

  private start(): Promise<void> {
    const run = this.job().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}
