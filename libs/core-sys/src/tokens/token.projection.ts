import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolve, type TokenState } from './token.decider';
import type { TOKEN_EVENT_TYPES } from './token.events';
import { TokenRepository } from './token.repository';

type TokenEvents = typeof TOKEN_EVENT_TYPES;

/**
 * Read-model update for one append to a token stream, in the append's transaction: the row is
 * the fold of the stream (evolve), so the projection never re-implements the transitions.
 * Answers the token after the events (null = revoked).
 */
@Injectable()
export class TokenProjection implements Projection<TokenEvents, TokenState | null, string> {
  constructor(private readonly repo: TokenRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<TokenEvents>[],
    accessor: string,
  ): Promise<TokenState | null> {
    const last = events[events.length - 1];
    if (!last) return null;
    const before = await this.repo.byAccessor(accessor, trx);
    let state: TokenState | null = before?.state ?? null;
    for (const e of events) state = evolve(state, e);
    if (state === null) {
      if (before) await this.repo.delete(trx, accessor);
    } else if (before) {
      await this.repo.update(trx, state, last.streamVersion);
    } else {
      await this.repo.insert(trx, state, last.streamVersion);
    }
    return state;
  }
}

/**
 * Every token write: `append(accessor, expectedVersion, events)` to `token/<accessor>`, with
 * TokenProjection in the transaction; answers the token after the events (null = revoked).
 */
export abstract class TokenEventLog extends AggregateWriter<TokenEvents, TokenState | null, string> {}
