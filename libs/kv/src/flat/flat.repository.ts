import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { KvDb, type DataKeysTable, type FlatSecretsTable, type KvTrx } from '../shared/kv.table';
import { listChildren } from '../shared/listing';
import { ReadBatcher } from '../shared/read-batcher';
import { KvReadFence } from '../shared/read-fence';
import { StreamCache } from '../shared/stream-cache';
import { Statement } from '../shared/statement';

/** Where unversioned secrets live: a mount, and within it an owner ("" for kv v1, a token ref for cubbyhole). */
export interface FlatScope {
  mountUuid: string;
  owner: string;
}

export type FlatReadRow = Pick<FlatSecretsTable, 'key_id' | 'ciphertext'> & {
  wrapped: DataKeysTable['wrapped'] | null;
};

interface FlatKey {
  scope: FlatScope;
  path: string;
}

export type FlatHead = Pick<FlatSecretsTable, 'key_id' | 'stream_version'>;

/** All SQL of unversioned secrets (kv v1 and cubbyhole). */
@Injectable()
export class FlatRepository {
  /** The hot read path, batched: every read of an event-loop turn in one select. */
  private readonly readSql: Statement<FlatReadRow & { i: number }>;
  private readonly reads: ReadBatcher<FlatKey, FlatReadRow>;
  /** secrets by their stream, coherent through KvReadFence */
  private readonly cache: StreamCache<FlatReadRow>;
  private readonly headSql: Statement<FlatHead>;
  /** Replacing a value: new data key, row update and erasure of the previous key, in one statement. */
  private readonly replaceSql: Statement<{ updated: number }>;
  /** A first value: data key and row; the plain insert fails for a concurrent creator. */
  private readonly createSql: Statement<{ updated: number }>;

  constructor(
    private readonly db: KvDb,
    fence: KvReadFence,
  ) {
    this.cache = new StreamCache(fence, (row) => row.ciphertext.length + (row.wrapped?.length ?? 0));
    this.readSql = new Statement(
      db.schema,
      `select q.i::int as i, s.key_id, s.ciphertext, d.wrapped
         from unnest($1::text[], $2::text[], $3::text[]) with ordinality as q (mount_uuid, owner, path, i)
         join {schema}.flat_secrets s
           on s.mount_uuid = q.mount_uuid and s.owner = q.owner and s.path = q.path collate "C"
         left join {schema}.data_keys d on d.key_id = s.key_id`,
    );
    this.reads = new ReadBatcher((keys) => this.readMany(keys));
    this.headSql = new Statement(
      db.schema,
      `select key_id, stream_version from {schema}.flat_secrets where mount_uuid = $1 and owner = $2 and path = $3`,
    );
    // a data key already there is kept (a re-sync's rebuild leaves data_keys in place: Kv2Projection)
    const newKey = `dk as (insert into {schema}.data_keys (key_id, mount_uuid, owner, wrapped) values ($4, $1, $2, $5)
                    on conflict (key_id) do nothing)`;
    this.replaceSql = new Statement(
      db.schema,
      `with ${newKey},
       up as (update {schema}.flat_secrets set key_id = $4, ciphertext = $6, stream_version = $7
               where mount_uuid = $1 and owner = $2 and path = $3 returning 1),
       old as (delete from {schema}.data_keys where key_id = $8)
       select count(*)::int as updated from up`,
    );
    this.createSql = new Statement(
      db.schema,
      `with ${newKey},
       up as (insert into {schema}.flat_secrets (mount_uuid, owner, path, key_id, ciphertext, stream_version)
              values ($1, $2, $3, $4, $6, $7) returning 1)
       select count(*)::int as updated from up`,
    );
  }

  /**
   * The hot read path: the secret's ciphertext and its wrapped data key (one indexed select when
   * not cached). `stream` is the secret's stream (flatStream), what invalidates the cached row.
   */
  async read(scope: FlatScope, path: string, stream: string): Promise<FlatReadRow | undefined> {
    return this.cache.read(stream, '', () => this.reads.read({ scope, path }));
  }

  private async readMany(keys: readonly FlatKey[]): Promise<Array<FlatReadRow | undefined>> {
    const rows = await this.readSql.rows(this.db.pool, [
      keys.map((k) => k.scope.mountUuid),
      keys.map((k) => k.scope.owner),
      keys.map((k) => k.path),
    ]);
    const out: Array<FlatReadRow | undefined> = new Array<undefined>(keys.length);
    for (const { i, ...row } of rows) out[i - 1] = row;
    return out;
  }

  async head(scope: FlatScope, path: string): Promise<FlatHead | undefined> {
    return this.headSql.first(this.db.pool, [scope.mountUuid, scope.owner, path]);
  }

  async list(scope: FlatScope, folder: string): Promise<string[]> {
    return listChildren(
      this.db.pool,
      `${this.db.schema}.flat_secrets`,
      sql`t.mount_uuid = ${scope.mountUuid} and t.owner = ${scope.owner}`,
      folder,
    );
  }

  /** Token refs owning cubbyhole data, in order, after `after` (for the liveness sweep). */
  async owners(after: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .of()
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
    const row = await this.db
      .of()
      .selectFrom('flat_secrets')
      .select('owner')
      .where('owner', '=', owner)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Projection of a SecretWritten: the row, the new data key, and erasure of the previous key. */
  async written(
    trx: KvTrx,
    scope: FlatScope,
    path: string,
    write: { keyId: string; wrapped: Buffer; ciphertext: Buffer; streamVersion: number },
    previousKeyId: string | null,
  ): Promise<void> {
    const params = [
      scope.mountUuid,
      scope.owner,
      path,
      write.keyId,
      write.wrapped,
      write.ciphertext,
      write.streamVersion,
    ];
    const row =
      previousKeyId === null
        ? await this.createSql.first(trx, params)
        : await this.replaceSql.first(trx, [...params, previousKeyId]);
    if (row?.updated !== 1) throw new Error('kv projection: the secret row to update is missing');
  }

  async deleted(trx: KvTrx, scope: FlatScope, path: string, keyId: string): Promise<void> {
    const db = this.db.of(trx);
    await db
      .deleteFrom('flat_secrets')
      .where('mount_uuid', '=', scope.mountUuid)
      .where('owner', '=', scope.owner)
      .where('path', '=', path)
      .execute();
    await db.deleteFrom('data_keys').where('key_id', '=', keyId).execute();
  }

  /** Projection of CubbyholeDestroyed: every secret and data key of the token, in every mount. */
  async ownerDestroyed(trx: KvTrx, owner: string): Promise<void> {
    const db = this.db.of(trx);
    await db.deleteFrom('data_keys').where('owner', '=', owner).execute();
    await db.deleteFrom('flat_secrets').where('owner', '=', owner).execute();
  }
}
