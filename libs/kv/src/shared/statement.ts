import { CompiledQuery } from 'kysely';
import type { AnyDb, AnyTrx } from '@coffer/event-store';

/**
 * A hot-path SQL statement written once, executed without building or transforming a query per
 * request (kysely's builder and schema plugin cost more than the query itself at thousands of
 * requests per second). `{schema}` in the text is replaced by the quoted service schema.
 */
export class Statement<Row> {
  private readonly text: string;

  constructor(schema: string, text: string) {
    this.text = text.replace(/\{schema\}/g, `"${schema.replace(/"/g, '""')}"`);
  }

  async rows(db: AnyDb | AnyTrx, params: readonly unknown[]): Promise<Row[]> {
    const result = await db.executeQuery<Row>(CompiledQuery.raw(this.text, [...params]));
    return result.rows;
  }

  async first(db: AnyDb | AnyTrx, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.rows(db, params))[0];
  }
}
