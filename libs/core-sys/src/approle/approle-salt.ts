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
 * How long a core-sys replica trusts a salt of its own log before it looks again whether a
 * replication primary's salt for the mount has arrived: the replica that applied it drops its
 * salts at once (the replay's onChanged), the other replicas of a secondary within this.
 */
const OWN_SALT_RECHECK_MS = 1_000;

interface LoadedSalt {
  hasher: SecretIdHasher;
  /** from this cluster's own log (not a replication primary's) */
  own: boolean;
  loadedAt: number;
}

/**
 * The per-mount salt of secret id HMACs: created by the mount's first secret id, kept in the event
 * log (under the barrier) and in memory only while unsealed; replicas racing to create it settle
 * through the stream's optimistic concurrency. On a performance secondary, a secret id made
 * before the primary's salt for the mount had streamed made a salt here; the primary's replaces
 * it once it arrives (its replicated secret ids are HMACed with it).
 */
@Injectable()
export class ApproleSalt {
  private readonly salts = new Map<string, Promise<LoadedSalt>>();
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
      this.salts.clear();
      throw new DomainError('sealed', 'Vault is sealed');
    }
    let loaded = this.salts.get(mountUuid);
    if (loaded) {
      const salt = await loaded;
      if (!salt.own || Date.now() - salt.loadedAt < OWN_SALT_RECHECK_MS) return salt.hasher;
      const arrived = await this.replicated.find(this.log.log.streamOf(mountUuid));
      if (arrived === undefined) {
        salt.loadedAt = Date.now();
        return salt.hasher;
      }
      if (this.salts.get(mountUuid) === loaded) this.salts.delete(mountUuid);
    }
    loaded = this.salts.get(mountUuid);
    if (!loaded) {
      loaded = this.load(mountUuid).catch((error: unknown) => {
        this.salts.delete(mountUuid);
        throw error;
      });
      this.salts.set(mountUuid, loaded);
    }
    return (await loaded).hasher;
  }

  /** Drops the salts from memory (the barrier was sealed, or a primary's salt was replayed). */
  forget(): void {
    this.salts.clear();
  }

  private async load(mountUuid: string): Promise<LoadedSalt> {
    const loaded = (salt: string | Buffer, own: boolean): LoadedSalt => ({
      hasher: new SecretIdHasher(typeof salt === 'string' ? Buffer.from(salt, 'base64') : salt),
      own,
      loadedAt: Date.now(),
    });
    const existing = await this.readSalt(mountUuid);
    if (existing !== undefined) return loaded(existing.salt, existing.own);
    try {
      const salt = randomBytes(32);
      await this.log.append(mountUuid, 0, [
        { type: 'ApproleSaltCreated', data: { salt: salt.toString('base64') } },
      ]);
      return loaded(salt, true);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
      const winner = await this.readSalt(mountUuid);
      if (winner === undefined) throw error;
      return loaded(winner.salt, winner.own);
    }
  }

  /**
   * The mount's salt: the primary's when the mount's secret ids came from a replication primary
   * (they are HMACed with it), else this cluster's own.
   */
  private async readSalt(mountUuid: string): Promise<{ salt: string; own: boolean } | undefined> {
    const replicated = await this.replicated.find(this.log.log.streamOf(mountUuid));
    if (replicated !== undefined) return { salt: replicated, own: false };
    const [created] = await this.log.read(mountUuid);
    return created === undefined ? undefined : { salt: created.data.salt, own: true };
  }
}
