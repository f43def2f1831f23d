import { z } from 'zod';
import { createPgDb, migrateSchema, EventStore, EventRegistry, defineEvent } from '@coffer/event-store';
import { Barrier, createKeyring } from '@coffer/barrier';
import { Client } from 'pg';
async function main() {
  const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS append_probe');
  await admin.query('CREATE DATABASE append_probe');
  await admin.end();
  const h = createPgDb('postgres://postgres@127.0.0.1:5432/append_probe', { max: 20 });
  await migrateSchema(h.db, 'probe', {});
  const b = new Barrier(); b.load(createKeyring());
  const ev = defineEvent('Thing', 1, z.object({ v: z.string() }));
  const store = new EventStore({ db: h.db, schema: 'probe', cipher: b, registry: new EventRegistry([ev]) });
  let n = 0; const end = Date.now() + 5000;
  await Promise.all(Array.from({ length: 64 }, async (_, w) => {
    let i = 0;
    while (Date.now() < end) { await store.append(`s/${w}/${i++}`, [{ type: 'Thing', version: 1, data: { v: 'x' } }], { expectedVersion: 0 }); n++; }
  }));
  console.log('appends/s', n / 5);
  await h.close();
}
void main();
