import { CompiledQuery, type Kysely } from 'kysely';
import type { KvDatabase } from './kv.table';

/**
 * A hot-path SQL statement written once, executed without building or transforming a query per
 * request (kysely's builder and schema plugin cost more than the query itself at thousands of
 * requests per second). `{schema}` in the text is replaced by the quoted service schema. `Row` is
 * built from the row types of kv.table.ts, so the results stay typed by that one definition.
 */
export class Statement<Row> {
  private readonly text: string;

  constructor(schema: string, text: string) {
    this.text = text.replace(/\{schema\}/g, `"${schema.replace(/"/g, '""')}"`);
  }

  async rows(db: Kysely<KvDatabase>, params: readonly unknown[]): Promise<Row[]> {
    const result = await db.executeQuery<Row>(CompiledQuery.raw(this.text, [...params]));
    return result.rows;
  }

  async first(db: Kysely<KvDatabase>, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.rows(db, params))[0];
  }
}
