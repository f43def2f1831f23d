import { Inject, Injectable } from '@nestjs/common';
import { EventRegistry, EventStore, defineEvent, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../tokens-di';
import type { TokenState } from './token.decider';
import {
  TOKEN_EVENT_TYPES,
  TOKEN_SALT_STREAM,
  tokenSaltCreatedV1,
  tokenStream,
  type TokenEvent,
} from './token.events';
import { projectToken } from './token.projection';
import { TokenRepository } from './token.repository';

/** The token event types, for any registry that must read token streams (replication, audits). */
export const tokenEventTypes = Object.values(TOKEN_EVENT_TYPES).map((t) =>
  defineEvent(t.name, t.version, t.schema),
);

const VERSION_OF: Record<TokenEvent['type'], number> = {
  TokenCreated: TOKEN_EVENT_TYPES.created.version,
  TokenRenewed: TOKEN_EVENT_TYPES.renewed.version,
  TokenUsed: TOKEN_EVENT_TYPES.used.version,
  TokenOrphaned: TOKEN_EVENT_TYPES.orphaned.version,
  TokenRevoked: TOKEN_EVENT_TYPES.revoked.version,
};

/** The token streams of the core_sys event log: every token write goes through here. */
@Injectable()
export class TokenEventLog {
  private readonly store: EventStore;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: ServiceRuntime,
    private readonly repo: TokenRepository,
  ) {
    this.store = new EventStore({
      db: runtime.db,
      schema: runtime.schema,
      cipher: runtime.cipher,
      clock: runtime.clock,
      registry: new EventRegistry(tokenEventTypes),
    });
  }

  /**
   * Appends to `token/<accessor>` if its version is still `expectedVersion` (0 = new token) and
   * updates the read model in the same transaction. Returns the token after the events (null =
   * revoked). A concurrent writer makes it throw the event store's conflict error.
   */
  async append(accessor: string, expectedVersion: number, events: TokenEvent[]): Promise<TokenState | null> {
    const result = await this.store.append(
      tokenStream(accessor),
      events.map((e) => ({ type: e.type, version: VERSION_OF[e.type], data: e.data })),
      { expectedVersion, project: (trx, stored) => projectToken(this.repo, trx, stored) },
    );
    return result.projected;
  }

  /** The cluster's token salt (base64), if created. */
  async readSalt(): Promise<string | undefined> {
    const events = await this.store.readStream(TOKEN_SALT_STREAM);
    const first = events[0];
    return first ? tokenSaltCreatedV1.parse(first.data).salt : undefined;
  }

  /** Creates the salt; throws the conflict error if another replica did first. */
  async createSalt(salt: string): Promise<void> {
    await this.store.append(
      TOKEN_SALT_STREAM,
      [
        {
          type: TOKEN_EVENT_TYPES.saltCreated.name,
          version: TOKEN_EVENT_TYPES.saltCreated.version,
          data: { salt },
        },
      ],
      { expectedVersion: 0 },
    );
  }
}
