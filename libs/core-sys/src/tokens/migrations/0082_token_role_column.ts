import type { Kysely } from 'kysely';

/** The token role a token was created with (lookup's `role`); "" for tokens without one. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tokens')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('role').execute();
}
