import type { Kysely } from 'kysely';

/**
 * sys/ha-status's heartbeats: one row per live core-sys process. Liveness, not state: written in
 * place (not events), so it is neither replayed nor replicated to other clusters.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ha_nodes')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('api_address', 'text', (c) => c.notNull())
    .addColumn('cluster_address', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('last_echo', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ha_nodes').execute();
}
