import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
import { ReplicaSealedRepository } from '../replication/replica-sealed.repository';
import { APPROLE_SALT_LOG } from './approle.events';

/** HMACs a role's secret ids under its mount's salt; compares in constant time. */
export class SecretIdHasher {
  constructor(private readonly salt: Buffer) {}

  /** The role name is part of the input: the same custom secret id on two roles is two entries. */
  hash(roleName: string, secretId: string): string {
    return createHmac('sha256', this.salt).update(`${roleName}\n${secretId}`, 'utf8').digest('hex');
  }

  matches(roleName: string, secretId: string, stored: string): boolean {
    const a = Buffer.from(this.hash(roleName, secretId), 'hex');
    const b = Buffer.from(stored, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/**
 * The per-mount salt of secret id HMACs: created by the mount's first secret id, kept in the event
 * log (under the barrier) and in memory only while unsealed; replicas racing to create it settle
 * through the stream's optimistic concurrency.
 */
@Injectable()
export class ApproleSalt {
  private readonly hashers = new Map<string, Promise<SecretIdHasher>>();
  private readonly log: AggregateWriter<typeof APPROLE_SALT_LOG.table, undefined, string>;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_EVENT_STORE) store: EventStore,
    private readonly replicated: ReplicaSealedRepository,
  ) {
    this.log = APPROLE_SALT_LOG.writer(store, noProjection());
  }

  async get(mountUuid: string): Promise<SecretIdHasher> {
    if (this.runtime.cipher.sealed) {
      this.hashers.clear();
      throw new DomainError('sealed', 'Vault is sealed');
    }
    let hasher = this.hashers.get(mountUuid);
    if (!hasher) {
      hasher = this.load(mountUuid).catch((error: unknown) => {
        this.hashers.delete(mountUuid);
        throw error;
      });
      this.hashers.set(mountUuid, hasher);
    }
    return hasher;
  }

  /** Drops the salts from memory (the barrier was sealed). */
  forget(): void {
    this.hashers.clear();
  }

  private async load(mountUuid: string): Promise<SecretIdHasher> {
    const existing = await this.readSalt(mountUuid);
    if (existing !== undefined) return new SecretIdHasher(Buffer.from(existing, 'base64'));
    try {
      const salt = randomBytes(32);
      await this.log.append(mountUuid, 0, [
        { type: 'ApproleSaltCreated', data: { salt: salt.toString('base64') } },
      ]);
      return new SecretIdHasher(salt);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
      const winner = await this.readSalt(mountUuid);
      if (winner === undefined) throw error;
      return new SecretIdHasher(Buffer.from(winner, 'base64'));
    }
  }

  /**
   * The mount's salt: the primary's when the mount's secret ids came from a replication primary
   * (they are HMACed with it), else this cluster's own.
   */
  private async readSalt(mountUuid: string): Promise<string | undefined> {
    const replicated = await this.replicated.find(this.log.log.streamOf(mountUuid));
    if (replicated !== undefined) return replicated;
    const [created] = await this.log.read(mountUuid);
    return created?.data.salt;
  }
}
