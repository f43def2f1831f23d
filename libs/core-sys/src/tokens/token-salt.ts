import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import {
  isConcurrencyError,
  noProjection,
  type AggregateWriter,
  type EventStore,
  type ServiceRuntime,
} from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { generateSalt, TokenHasher } from './token-crypto';
import { TOKEN_SALT_LOG } from './token.events';

/**
 * Holds the per-cluster token salt. It lives in the event log (so under the barrier) and is
 * created by the first token ever issued (the root token at sys/init); replicas racing to create
 * it settle through the stream's optimistic concurrency. Kept in memory only while unsealed.
 */
@Injectable()
export class TokenSalt {
  private hasher: Promise<TokenHasher> | undefined;
  private readonly log: AggregateWriter<typeof TOKEN_SALT_LOG.table, undefined>;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_EVENT_STORE) store: EventStore,
  ) {
    this.log = TOKEN_SALT_LOG.writer(store, noProjection());
  }

  async get(): Promise<TokenHasher> {
    if (this.runtime.cipher.sealed) {
      this.hasher = undefined;
      throw new DomainError('sealed', 'Vault is sealed');
    }
    this.hasher ??= this.load().catch((error: unknown) => {
      this.hasher = undefined;
      throw error;
    });
    return this.hasher;
  }

  /** Drops the salt from memory (the barrier was sealed). */
  forget(): void {
    this.hasher = undefined;
  }

  private async load(): Promise<TokenHasher> {
    const existing = await this.readSalt();
    if (existing !== undefined) return new TokenHasher(Buffer.from(existing, 'base64'));
    try {
      const salt = generateSalt();
      // expected version 0: another replica creating it first makes this throw the conflict
      await this.log.append(undefined, 0, [
        { type: 'TokenSaltCreated', data: { salt: salt.toString('base64') } },
      ]);
      return new TokenHasher(salt);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
      const winner = await this.readSalt();
      if (winner === undefined) throw error;
      return new TokenHasher(Buffer.from(winner, 'base64'));
    }
  }

  /** The cluster's token salt (base64), if created. */
  private async readSalt(): Promise<string | undefined> {
    const [created] = await this.log.read();
    return created?.data.salt;
  }
}
