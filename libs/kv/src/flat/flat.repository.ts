import { Inject, Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AnyTrx, ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.tokens';
import type { KvDatabase } from '../shared/kv.tables';
import { listChildren } from '../shared/listing';

/** Where unversioned secrets live: a mount, and within it an owner ("" for kv v1, a token ref for cubbyhole). */
export interface FlatScope {
  mountUuid: string;
  owner: string;
}

export interface FlatReadRow {
  key_id: string;
  ciphertext: Buffer;
  wrapped: Buffer | null;
}

export interface FlatHead {
  key_id: string;
  stream_version: number;
}

/** All SQL of unversioned secrets (kv v1 and cubbyhole). */
@Injectable()
export class FlatRepository {
  constructor(@Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime) {}

  private db(trx?: AnyTrx): Kysely<KvDatabase> {
    return ((trx ?? this.runtime.db) as Kysely<KvDatabase>).withSchema(this.runtime.schema);
  }

  /** The hot read path: the secret's ciphertext and its wrapped data key, one indexed select. */
  async read(scope: FlatScope, path: string): Promise<FlatReadRow | undefined> {
    return this.db()
      .selectFrom('flat_secrets as s')
      .leftJoin('data_keys as d', 'd.key_id', 's.key_id')
      .select(['s.key_id', 's.ciphertext', 'd.wrapped'])
      .where('s.mount_uuid', '=', scope.mountUuid)
      .where('s.owner', '=', scope.owner)
      .where('s.path', '=', path)
      .executeTakeFirst();
  }

  async head(scope: FlatScope, path: string): Promise<FlatHead | undefined> {
    return this.db()
      .selectFrom('flat_secrets')
      .select(['key_id', 'stream_version'])
      .where('mount_uuid', '=', scope.mountUuid)
      .where('owner', '=', scope.owner)
      .where('path', '=', path)
      .executeTakeFirst();
  }

  async list(scope: FlatScope, folder: string): Promise<string[]> {
    return listChildren(
      this.runtime.db,
      `${this.runtime.schema}.flat_secrets`,
      sql`t.mount_uuid = ${scope.mountUuid} and t.owner = ${scope.owner}`,
      folder,
    );
  }

  /** Token refs owning cubbyhole data, in order, after `after` (for the liveness sweep). */
  async owners(after: string, limit: number): Promise<string[]> {
    const rows = await this.db()
      .selectFrom('flat_secrets')
      .select('owner')
      .where('owner', '>', after)
      .groupBy('owner')
      .orderBy('owner')
      .limit(limit)
      .execute();
    return rows.map((r) => r.owner);
  }

  async ownerHasData(owner: string): Promise<boolean> {
    const row = await this.db().selectFrom('flat_secrets').select('owner').where('owner', '=', owner).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Writes the projection of a SecretWritten: the row, the new data key, and erases the previous key. */
  async written(
    trx: AnyTrx,
    scope: FlatScope,
    path: string,
    write: { keyId: string; wrapped: Buffer; ciphertext: Buffer; streamVersion: number },
    previousKeyId: string | null,
  ): Promise<void> {
    const db = this.db(trx);
    await db
      .insertInto('data_keys')
      .values({ key_id: write.keyId, mount_uuid: scope.mountUuid, owner: scope.owner, wrapped: write.wrapped })
      .execute();
    if (previousKeyId === null) {
      // Plain insert: a concurrent creator makes it fail, and the service retries as an update.
      await db
        .insertInto('flat_secrets')
        .values({
          mount_uuid: scope.mountUuid,
          owner: scope.owner,
          path,
          key_id: write.keyId,
          ciphertext: write.ciphertext,
          stream_version: write.streamVersion,
        })
        .execute();
      return;
    }
    await db
      .updateTable('flat_secrets')
      .set({ key_id: write.keyId, ciphertext: write.ciphertext, stream_version: write.streamVersion })
      .where('mount_uuid', '=', scope.mountUuid)
      .where('owner', '=', scope.owner)
      .where('path', '=', path)
      .execute();
    await db.deleteFrom('data_keys').where('key_id', '=', previousKeyId).execute();
  }

  async deleted(trx: AnyTrx, scope: FlatScope, path: string, keyId: string): Promise<void> {
    const db = this.db(trx);
    await db
      .deleteFrom('flat_secrets')
      .where('mount_uuid', '=', scope.mountUuid)
      .where('owner', '=', scope.owner)
      .where('path', '=', path)
      .execute();
    await db.deleteFrom('data_keys').where('key_id', '=', keyId).execute();
  }

  /** Projection of CubbyholeDestroyed: every secret and data key of the token, in every mount. */
  async ownerDestroyed(trx: AnyTrx, owner: string): Promise<void> {
    const db = this.db(trx);
    await db.deleteFrom('data_keys').where('owner', '=', owner).execute();
    await db.deleteFrom('flat_secrets').where('owner', '=', owner).execute();
  }
}
