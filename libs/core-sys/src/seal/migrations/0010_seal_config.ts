import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * The seal configuration and the root-key-encrypted keyring. These rows sit below the barrier
 * (the barrier cannot encrypt what unlocks it), so they hold nothing usable without the key
 * shares: the keyring is AES-256-GCM under the root key, the root key is under the keyring.
 */
export const sealConfigMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('seal_config')
      .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('secret_shares', 'integer', (c) => c.notNull())
      .addColumn('secret_threshold', 'integer', (c) => c.notNull())
      .addColumn('keyring', 'bytea', (c) => c.notNull())
      .addColumn('root_key', 'bytea', (c) => c.notNull())
      .addColumn('active_term', 'integer', (c) => c.notNull())
      .addColumn('cluster_name', 'text', (c) => c.notNull())
      .addColumn('cluster_id', 'text', (c) => c.notNull())
      .addColumn('initialized_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('seal_config').execute();
  },
};
