import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import type { TokenState } from './token.decider';
import {
  TOKEN_SALT_CREATED,
  TOKEN_SALT_STREAM,
  tokenSaltCreatedV1,
  tokenStream,
  type TokenEvent,
} from './token.events';
import { projectToken, TOKEN_LOG } from './token.projection';
import { TokenRepository } from './token.repository';

/** The token event types, for any registry that must read token streams (replication, audits). */
export const tokenEventTypes = TOKEN_LOG.eventTypes;

/** The token streams of the core_sys event log: every token write goes through here. */
@Injectable()
export class TokenEventLog {
  private readonly store: EventStore;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: ServiceRuntime,
    private readonly repo: TokenRepository,
  ) {
    this.store = TOKEN_LOG.createStore(runtime);
  }

  /**
   * Appends to `token/<accessor>` if its version is still `expectedVersion` (0 = new token) and
   * updates the read model in the same transaction. Returns the token after the events (null =
   * revoked). A concurrent writer makes it throw the event store's conflict error.
   */
  async append(accessor: string, expectedVersion: number, events: TokenEvent[]): Promise<TokenState | null> {
    const result = await this.store.append(tokenStream(accessor), TOKEN_LOG.toNewEvents(events), {
      expectedVersion,
      project: (trx, stored) => projectToken(this.repo, trx, stored),
    });
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
      [{ type: TOKEN_SALT_CREATED.name, version: TOKEN_SALT_CREATED.version, data: { salt } }],
      { expectedVersion: 0 },
    );
  }
}
