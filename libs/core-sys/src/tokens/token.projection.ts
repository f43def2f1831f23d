import type { AnyTrx, AppendedEvent } from '@coffer/event-store';
import { defineAggregateLog } from '../shared/aggregate-log';
import { evolve, type TokenState } from './token.decider';
import { TOKEN_EVENT_TYPES, TOKEN_SALT_CREATED, type TokenEvent } from './token.events';
import type { TokenRepository } from './token.repository';

/** The token log's event types and codecs; the salt shares the log but is no token event. */
export const TOKEN_LOG = defineAggregateLog('a token event', TOKEN_EVENT_TYPES, [TOKEN_SALT_CREATED]);

export const toTokenEvent = (e: AppendedEvent): TokenEvent => TOKEN_LOG.decode(e);

/**
 * Read-model update for one append to a token stream, in the append's transaction: the row is
 * the fold of the stream (evolve), so the projection never re-implements the transitions.
 */
export async function projectToken(
  repo: TokenRepository,
  trx: AnyTrx,
  events: AppendedEvent[],
): Promise<TokenState | null> {
  const first = events[0];
  const last = events[events.length - 1];
  if (!first || !last) return null;
  const accessor = first.stream.slice(first.stream.indexOf('/') + 1);
  const before = await repo.byAccessor(accessor, trx);
  let state: TokenState | null = before?.state ?? null;
  for (const e of events) state = evolve(state, toTokenEvent(e));
  if (state === null) {
    if (before) await repo.delete(trx, accessor);
  } else if (before) {
    await repo.update(trx, state, last.streamVersion);
  } else {
    await repo.insert(trx, state, last.streamVersion);
  }
  return state;
}
