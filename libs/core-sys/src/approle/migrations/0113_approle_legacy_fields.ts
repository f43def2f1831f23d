import { sql, type Kysely } from 'kysely';

/**
 * A role's deprecated `policies` / `period` (Vault keeps them beside token_policies /
 * token_period and echoes them on reads while set); [] and 0 for none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('approle_roles')
    .addColumn('legacy_policies', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('legacy_period', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('approle_roles')
    .dropColumn('legacy_policies')
    .dropColumn('legacy_period')
    .execute();
}
