import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Each policy version's WAL span: `next_wal` is the WAL of the stream's next event (null while it
 * is the last), so "every policy's version at event W" is one GiST stabbing query over
 * `int8range(wal, next_wal) @> W` (plus the open spans starting at or before W) instead of one indexed lookup per policy
 * (sys/history/access on thousands of policies). Backfilled from the rows already indexed.
 */
export const historyPolicySpansMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    // rewritten rather than updated in place: an update would leave a dead tuple per version in
    // the new indexes until a vacuum (the open-span index would hold every version meanwhile)
    await sql`create temp table history_policy_spans_backfill on commit drop as
              select stream, wal, written, lead(wal) over (partition by stream order by wal) as next_wal
                from history_policy_versions`.execute(db);
    await sql`truncate history_policy_versions`.execute(db);
    await db.schema.alterTable('history_policy_versions').addColumn('next_wal', 'int8').execute();
    await sql`insert into history_policy_versions (stream, wal, written, next_wal)
              select stream, wal, written, next_wal from history_policy_spans_backfill`.execute(db);
    // closed spans only: an open span [wal, ∞) closed later leaves its dead tuple behind, and a
    // GiST page once covering ∞ never shrinks back (every later stabbing query would visit it)
    await sql`create index history_policy_versions_span on history_policy_versions
                using gist (int8range(wal, next_wal)) where next_wal is not null`.execute(db);
    // the open spans (each stream's last version), read by their start and closed by the next pass
    await sql`create index history_policy_versions_open on history_policy_versions (wal)
               where next_wal is null`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('history_policy_versions_open').execute();
    await db.schema.dropIndex('history_policy_versions_span').execute();
    await db.schema.alterTable('history_policy_versions').dropColumn('next_wal').execute();
  },
};
