import type { Kysely, Migration } from 'kysely';

/** cloud-a and cloud-b records share one shape: `pending_until` becomes `recover_at` (frozen). */
export const cloudARecoverAt0002: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('cloud_a_records').renameColumn('pending_until', 'recover_at').execute();
  },
};
