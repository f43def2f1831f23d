import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { generateSalt, TokenHasher } from './token-crypto';
import { TokenEventLog } from './token-event-log';

/**
 * Holds the per-cluster token salt. It lives in the event log (so under the barrier) and is
 * created by the first token ever issued (the root token at sys/init); replicas racing to create
 * it settle through the stream's optimistic concurrency. Kept in memory only while unsealed.
 */
@Injectable()
export class TokenSalt {
  private hasher: Promise<TokenHasher> | undefined;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly log: TokenEventLog,
  ) {}

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
    const existing = await this.log.readSalt();
    if (existing !== undefined) return new TokenHasher(Buffer.from(existing, 'base64'));
    try {
      const salt = generateSalt();
      await this.log.createSalt(salt.toString('base64'));
      return new TokenHasher(salt);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
      const winner = await this.log.readSalt();
      if (winner === undefined) throw error;
      return new TokenHasher(Buffer.from(winner, 'base64'));
    }
  }
}
