import type { Kysely } from 'kysely';

/** A mount being unmounted (Vault's Tainted): refuses requests until the unmount finishes. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mounts')
    .addColumn('tainted', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mounts').dropColumn('tainted').execute();
}
