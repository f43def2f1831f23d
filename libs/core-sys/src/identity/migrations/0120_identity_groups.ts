import type { Kysely } from 'kysely';

/** Read model of identity groups, their aliases and the membership indexes token policies walk. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('identity_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('policies', 'jsonb', (c) => c.notNull())
    .addColumn('member_entity_ids', 'jsonb', (c) => c.notNull())
    .addColumn('member_group_ids', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('modify_index', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('identity_group_aliases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('group_id', 'text', (c) => c.notNull().unique())
    .addColumn('mount_accessor', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('identity_group_aliases_factors_key', ['mount_accessor', 'name'])
    .execute();
  await db.schema
    .createTable('identity_group_entity_members')
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('identity_group_entity_members_pkey', ['group_id', 'entity_id'])
    .execute();
  await db.schema
    .createIndex('identity_group_entity_members_entity_idx')
    .on('identity_group_entity_members')
    .column('entity_id')
    .execute();
  await db.schema
    .createTable('identity_group_edges')
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('child_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('identity_group_edges_pkey', ['parent_id', 'child_id'])
    .execute();
  await db.schema
    .createIndex('identity_group_edges_child_idx')
    .on('identity_group_edges')
    .column('child_id')
    .execute();
  await db.schema
    .createTable('identity_group_graphs')
    .addColumn('namespace', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('identity_group_graphs').execute();
  await db.schema.dropTable('identity_group_edges').execute();
  await db.schema.dropTable('identity_group_entity_members').execute();
  await db.schema.dropTable('identity_group_aliases').execute();
  await db.schema.dropTable('identity_groups').execute();
}
