import type { Kysely } from 'kysely';

/** Read model of token roles (auth/token/roles/:name), keyed by role name. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('token_roles')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('role', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('token_roles').execute();
}
