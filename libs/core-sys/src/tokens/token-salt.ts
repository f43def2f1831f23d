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
import { ReplicaSealedRepository } from '../replication/replica-sealed.repository';
import { TOKEN_SALT_LOG, TOKEN_SALT_STREAM } from './token.events';

/**
 * Holds the per-cluster token salt. It lives in the event log (so under the barrier) and is
 * created by the first token ever issued (the root token at sys/init); replicas racing to create
 * it settle through the stream's optimistic concurrency. Kept in memory only while unsealed.
 */
@Injectable()
export class TokenSalt {
  private hasher: Promise<TokenHasher> | undefined;
  /** the replicated salts' hashers (a DR secondary's primary, the clusters it was promoted from), by salt */
  private readonly foreign = new Map<string, TokenHasher>();
  private readonly log: AggregateWriter<typeof TOKEN_SALT_LOG.table, undefined>;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_EVENT_STORE) store: EventStore,
    private readonly replicated: ReplicaSealedRepository,
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

  /**
   * Finds a token by value: hashed with this cluster's salt, then (a DR secondary's copy of its
   * primary's tokens, also once promoted) with the primary's replicated salt and the salts of the
   * clusters its primary was promoted from (folded into its log, see inheritedTokenSaltStream).
   * Answers the row and the hasher that matched it (constant-time), or undefined.
   */
  async find<T extends { state: { tokenHash: string } }>(
    token: string,
    byHash: (hash: string) => Promise<T | undefined>,
  ): Promise<{ found: T; hasher: TokenHasher } | undefined> {
    const own = await this.get();
    const mine = await byHash(own.hash(token));
    if (mine && own.matches(token, mine.state.tokenHash)) return { found: mine, hasher: own };
    for (const hasher of await this.primaryHashers()) {
      const theirs = await byHash(hasher.hash(token));
      if (theirs && hasher.matches(token, theirs.state.tokenHash)) return { found: theirs, hasher };
    }
    return undefined;
  }

  /** Drops the salt from memory (the barrier was sealed). */
  forget(): void {
    this.hasher = undefined;
    this.foreign.clear();
  }

  /** The hashers of the replicated token salts (a DR primary's and those it inherited), if any. */
  async primaryHashers(): Promise<TokenHasher[]> {
    const salts = [...new Set(await this.replicated.findUnder(TOKEN_SALT_STREAM))];
    return salts.map((salt) => {
      let hasher = this.foreign.get(salt);
      if (!hasher) {
        hasher = new TokenHasher(Buffer.from(salt, 'base64'));
        this.foreign.set(salt, hasher);
      }
      return hasher;
    });
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
