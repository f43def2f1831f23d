import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

/** A name unique to this run: `<label>-<random hex>` (valid in paths, policy and user names). */
export function uniq(label: string): string {
  return `${label}-${randomBytes(5).toString('hex')}`;
}

/** The forms a leaked value could take in storage: raw, base64, base64url and hex. */
export function encodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [value, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

export interface DatabaseHit {
  table: string;
  needle: string;
}

/**
 * Searches every row of every user table of a database, rendered as text (bytea shows as hex),
 * for each needle in each of its encodings.
 */
export async function searchDatabaseText(
  databaseUrl: string,
  needles: string[],
): Promise<{ hits: DatabaseHit[]; tables: number; rows: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    const hits: DatabaseHit[] = [];
    let rowCount = 0;
    for (const t of tables) {
      const table = `"${t.schema.replace(/"/g, '""')}"."${t.name.replace(/"/g, '""')}"`;
      const { rows } = await client.query<{ row: string }>(`select r::text as row from ${table} r`);
      rowCount += rows.length;
      for (const needle of needles) {
        const forms = encodings(needle);
        if (rows.some((r) => forms.some((f) => r.row.toLowerCase().includes(f.toLowerCase())))) {
          hits.push({ table: `${t.schema}.${t.name}`, needle });
        }
      }
    }
    return { hits, tables: tables.length, rows: rowCount };
  } finally {
    await client.end();
  }
}

export interface FileHit {
  file: string;
  needle: string;
}

/** Searches every file under `dir` (raw bytes) for each needle in each of its encodings. */
export async function searchFilesForBytes(
  dir: string,
  needles: string[],
): Promise<{ hits: FileHit[]; files: number; bytes: number }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const hits: FileHit[] = [];
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const content = await readFile(file);
    files += 1;
    bytes += content.length;
    for (const needle of needles) {
      if (encodings(needle).some((form) => content.includes(Buffer.from(form, 'utf8')))) {
        hits.push({ file: path.relative(dir, file), needle });
      }
    }
  }
  return { hits, files, bytes };
}
