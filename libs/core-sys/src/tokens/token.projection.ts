import type { AnyTrx, AppendedEvent } from '@coffer/event-store';
import { evolve, type TokenState } from './token.decider';
import {
  TOKEN_EVENT_TYPES,
  tokenCreatedV1,
  tokenOrphanedV1,
  tokenRenewedV1,
  tokenRevokedV1,
  tokenUsedV1,
  type TokenEvent,
} from './token.events';
import type { TokenRepository } from './token.repository';

export function toTokenEvent(e: AppendedEvent): TokenEvent {
  switch (e.type) {
    case TOKEN_EVENT_TYPES.created.name:
      return { type: 'TokenCreated', data: tokenCreatedV1.parse(e.data) };
    case TOKEN_EVENT_TYPES.renewed.name:
      return { type: 'TokenRenewed', data: tokenRenewedV1.parse(e.data) };
    case TOKEN_EVENT_TYPES.used.name:
      return { type: 'TokenUsed', data: tokenUsedV1.parse(e.data) };
    case TOKEN_EVENT_TYPES.orphaned.name:
      return { type: 'TokenOrphaned', data: tokenOrphanedV1.parse(e.data) };
    case TOKEN_EVENT_TYPES.revoked.name:
      return { type: 'TokenRevoked', data: tokenRevokedV1.parse(e.data) };
    default:
      throw new Error(`not a token event: ${e.type}`);
  }
}

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
