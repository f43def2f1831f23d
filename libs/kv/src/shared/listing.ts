import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { KvDatabase } from './kv.table';
import { childEntry, folderUpperBound } from './paths';

/**
 * One level of a folder listing, answered from the (mount[, owner], path) primary key alone: a
 * recursive "skip scan" that fetches the first path of each child and then jumps past it (past
 * the whole sub-folder when the child is one), so the cost is one index probe per child whatever
 * the size of the sub-folders. Paths use the "C" collation, so index order is byte order.
 */
export async function listChildren(
  db: Kysely<KvDatabase>,
  table: string,
  scope: RawBuilder<unknown>,
  folder: string,
): Promise<string[]> {
  const t = sql.table(table);
  const upper = folderUpperBound(folder) ?? null;
  const below = sql`(${upper}::text is null or t.path < ${upper}::text collate "C")`;
  const { rows } = await sql<{ path: string }>`
    with recursive walk(path) as (
      (select t.path from ${t} t
        where ${scope} and t.path > ${folder}::text collate "C" and ${below}
        order by t.path limit 1)
      union all
      select (select t.path from ${t} t
               where ${scope}
                 and t.path >= (case
                   when strpos(substr(w.path, char_length(${folder}::text) + 1), '/') > 0
                   then substr(w.path, 1, char_length(${folder}::text) + strpos(substr(w.path, char_length(${folder}::text) + 1), '/') - 1) || '0'
                   else w.path || chr(1) end) collate "C"
                 and ${below}
               order by t.path limit 1)
        from walk w where w.path is not null
    )
    select path from walk where path is not null`.execute(db);
  return rows.map((r) => childEntry(folder, r.path));
}
