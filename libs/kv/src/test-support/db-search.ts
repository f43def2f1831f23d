import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { AnyDb } from '@coffer/event-store';

/**
 * "Search the whole database" for a plaintext, in any encoding: every row of every table of every
 * schema (as Postgres renders it, bytea in hex), and every byte on disk that belongs to the
 * database — its directory under data_directory (heap, indexes, TOAST, free-space and visibility
 * maps) and the server's write-ahead log — after a CHECKPOINT has flushed shared buffers.
 */

/** The forms a value can take when stored: raw UTF-8, UTF-16, base64 (3 alignments), hex, JSON-escaped. */
export function encodingsOf(value: string): Buffer[] {
  const utf8 = Buffer.from(value, 'utf8');
  const forms = [
    utf8,
    Buffer.from(value, 'utf16le'),
    Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8'),
    Buffer.from(utf8.toString('hex'), 'utf8'),
    Buffer.from(utf8.toString('hex').toUpperCase(), 'utf8'),
  ];
  // base64 of the value at any byte offset inside a larger blob: drop the partial edge groups
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), utf8]).toString('base64');
    const inner = b64.slice(4, b64.length - 4);
    if (inner.length >= 8)
      forms.push(
        Buffer.from(inner, 'utf8'),
        Buffer.from(inner.replace(/\+/g, '-').replace(/\//g, '_'), 'utf8'),
      );
  }
  return forms;
}

export async function allRowsAsText(db: AnyDb): Promise<string[]> {
  const { rows: tables } = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
     where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`.execute(
    db,
  );
  const out: string[] = [];
  for (const t of tables) {
    const { rows } = await sql<{
      row: string;
    }>`select x::text as row from ${sql.table(`${t.schema}.${t.name}`)} x`.execute(db);
    for (const r of rows) out.push(r.row);
  }
  return out;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path)));
    else if (e.isFile()) out.push(path);
  }
  return out;
}

/** The database's own files and the WAL, flushed to disk first. */
export async function databaseFiles(db: AnyDb): Promise<string[]> {
  await sql`checkpoint`.execute(db);
  const { rows } = await sql<{ dir: string; oid: number }>`
    select current_setting('data_directory') as dir, oid::int as oid from pg_database where datname = current_database()`.execute(
    db,
  );
  const row = rows[0];
  if (!row) throw new Error('no current database');
  return [
    ...(await filesUnder(join(row.dir, 'base', String(row.oid)))),
    ...(await filesUnder(join(row.dir, 'pg_wal'))),
  ];
}

export interface Finding {
  where: string;
  form: number;
}

/** Where any encoding of any of `values` occurs: rows first, then files. Empty when nowhere. */
export async function searchDatabase(db: AnyDb, values: string[]): Promise<Finding[]> {
  const needles = values.flatMap((v) => encodingsOf(v));
  const found: Finding[] = [];
  const rows = await allRowsAsText(db);
  for (const row of rows) {
    const bytes = Buffer.from(row, 'utf8');
    needles.forEach((n, form) => {
      if (bytes.includes(n)) found.push({ where: `row ${row.slice(0, 60)}`, form });
    });
  }
  for (const file of await databaseFiles(db)) {
    let content: Buffer;
    try {
      content = await readFile(file);
    } catch {
      continue; // a WAL segment recycled while we listed
    }
    needles.forEach((n, form) => {
      if (content.includes(n)) found.push({ where: file, form });
    });
  }
  return found;
}

/** Whether raw bytes (e.g. a wrapped data key) still occur in any live row (bytea shows as \x<hex>). */
export async function rowsContainBytes(db: AnyDb, bytes: Buffer): Promise<boolean> {
  const hex = bytes.toString('hex');
  return (await allRowsAsText(db)).some((row) => row.includes(hex));
}
