/**
 * Where one append stands in its group committer, for the append decided on its outcome before
 * it committed (a per-stream write pipeline: see AppendOptions.after). Set by the committer only.
 */
export type AppendLinkState = 'queued' | 'batched' | 'committed' | 'failed';

export class AppendLink {
  #state: AppendLinkState = 'queued';

  /**
   * queued: waiting for a batch (an append submitted now lands in the same batch or a later one);
   * batched: in the batch being committed; committed / failed: settled.
   */
  get state(): AppendLinkState {
    return this.#state;
  }

  /** @internal the committer's transitions */
  moveTo(state: AppendLinkState): void {
    this.#state = state;
  }
}
