import type { AnyTrx, AppendedEvent, ManyProjectionCall } from './event-store-types';

interface Pending {
  call: ManyProjectionCall;
  events: AppendedEvent[];
  /** the staged append, whose `projected` the call's result fills in */
  target: { projected: unknown };
}

/**
 * The appends of a batch whose projection waits to run together with its neighbours' (see
 * ManyProjection): consecutive appends of one projection, flushed as one call before any other
 * projection runs, so projections still take effect in arrival order.
 */
export class DeferredProjections {
  #pending: Pending[] = [];

  /** whether an append with `call` can join the pending group (else: flush first) */
  fits(call: ManyProjectionCall | undefined): boolean {
    const first = this.#pending[0];
    if (!call) return first === undefined;
    return first === undefined || first.call.projection === call.projection;
  }

  add(call: ManyProjectionCall, events: AppendedEvent[], target: { projected: unknown }): void {
    this.#pending.push({ call, events, target });
  }

  /** Runs the pending group, if any; throws what its projection threw. */
  async flush(trx: AnyTrx): Promise<void> {
    const group = this.#pending;
    const first = group[0];
    this.#pending = [];
    if (!first) return;
    const results = await first.call.projection.apply(
      trx,
      group.map((p) => ({ events: p.events, context: p.call.context })),
    );
    if (results.length !== group.length) {
      throw new Error(`a projection of ${group.length} appends answered ${results.length} results`);
    }
    group.forEach((p, i) => (p.target.projected = results[i]));
  }
}
