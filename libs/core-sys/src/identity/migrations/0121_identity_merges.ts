import { sql, type Kysely } from 'kysely';

/** Entity merges: what an entity was merged from, and where a merged-away entity id now points. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('identity_entities')
    .addColumn('merged_entity_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema
    .alterTable('identity_aliases')
    .addColumn('merged_from', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema
    .createTable('identity_merged_entities')
    .addColumn('merged_id', 'text', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('identity_merged_entities_entity_idx')
    .on('identity_merged_entities')
    .column('entity_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('identity_merged_entities').execute();
  await db.schema.alterTable('identity_aliases').dropColumn('merged_from').execute();
  await db.schema.alterTable('identity_entities').dropColumn('merged_entity_ids').execute();
}
