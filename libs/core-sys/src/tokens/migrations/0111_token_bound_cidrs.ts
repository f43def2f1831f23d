import { sql, type Kysely } from 'kysely';

/** token_bound_cidrs of a token (lookup's `bound_cidrs`, checked on every use); [] for none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tokens')
    .addColumn('bound_cidrs', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('bound_cidrs').execute();
}
