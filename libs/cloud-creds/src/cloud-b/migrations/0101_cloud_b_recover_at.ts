import type { Kysely, Migration } from 'kysely';

/** cloud-a and cloud-b records share one shape: `pending_since` becomes `recover_at` (frozen). */
export const cloudBRecoverAt0101: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('cloud_b_records').renameColumn('pending_since', 'recover_at').execute();
  },
};
