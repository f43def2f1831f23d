import { sql, type Kysely } from 'kysely';

/** A mount's audit_non_hmac_request_keys / audit_non_hmac_response_keys; [] for none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mounts')
    .addColumn('audit_non_hmac_request_keys', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('audit_non_hmac_response_keys', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mounts')
    .dropColumn('audit_non_hmac_request_keys')
    .dropColumn('audit_non_hmac_response_keys')
    .execute();
}
