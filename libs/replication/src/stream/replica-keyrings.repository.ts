import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Barrier, parseKeyring, serializeKeyring, type Cipher } from '@coffer/barrier';
import type { ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';
import { ReplicationDb } from '../replication.table';

const aad = (fingerprint: string): Buffer =>
  Buffer.from(`replication.replica_keyrings|${fingerprint}`, 'utf8');

/**
 * Opens a ciphertext with whichever of several keyrings wrote it (AES-GCM's tag tells a wrong
 * key): a log holding rows replayed from a former primary next to this cluster's own.
 */
export class KeyringSet implements Cipher {
  constructor(private readonly ciphers: readonly Cipher[]) {}

  get sealed(): boolean {
    return this.ciphers.every((c) => c.sealed);
  }

  encrypt(): Buffer {
    throw new Error('a keyring set only opens ciphertexts');
  }

  decrypt(ciphertext: Uint8Array, additional: Uint8Array): Buffer {
    let failure: unknown = new Error('no keyring');
    for (const cipher of this.ciphers) {
      try {
        return cipher.decrypt(ciphertext, additional);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}

/** The keyrings this cluster received from its primaries, sealed by its own barrier. */
@Injectable()
export class ReplicaKeyringsRepository {
  private cached: Barrier[] | undefined;

  constructor(
    private readonly db: ReplicationDb,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  /** Keeps a primary's keyrings (serialized, base64), each once. */
  async save(keyrings: readonly string[]): Promise<void> {
    const own = this.ownSerialized();
    for (const b64 of keyrings) {
      const bytes = Buffer.from(b64, 'base64');
      if (own?.equals(bytes)) continue;
      const fingerprint = createHash('sha256').update(bytes).digest('hex');
      const inserted = await this.db
        .of()
        .insertInto('replica_keyrings')
        .values({
          fingerprint,
          sealed: this.runtime.cipher.encrypt(bytes, aad(fingerprint)),
          received_at: this.runtime.clock(),
        })
        .onConflict((oc) => oc.column('fingerprint').doNothing())
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) this.cached = undefined;
    }
  }

  /** This cluster's keyring and every received one: what its secondaries need (base64). */
  async toSend(): Promise<string[]> {
    const own = this.ownSerialized();
    const foreign = (await this.foreign()).map((b) => serializeKeyring(b.exportKeyring()).toString('base64'));
    return own ? [own.toString('base64'), ...foreign] : foreign;
  }

  /** Opens rows of this cluster's logs, whoever wrote them. */
  async opener(): Promise<Cipher> {
    return new KeyringSet([this.runtime.cipher, ...(await this.foreign())]);
  }

  private ownSerialized(): Buffer | undefined {
    const cipher = this.runtime.cipher;
    return cipher instanceof Barrier && !cipher.sealed ? serializeKeyring(cipher.exportKeyring()) : undefined;
  }

  private async foreign(): Promise<Barrier[]> {
    if (this.cached) return this.cached;
    const rows = await this.db
      .of()
      .selectFrom('replica_keyrings')
      .select(['fingerprint', 'sealed'])
      .execute();
    const barriers = rows.map((r) => {
      const barrier = new Barrier();
      barrier.load(parseKeyring(this.runtime.cipher.decrypt(r.sealed, aad(r.fingerprint))));
      return barrier;
    });
    this.cached = barriers;
    return barriers;
  }
}
