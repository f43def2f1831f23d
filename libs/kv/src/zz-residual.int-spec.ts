import { kvV2 } from '@coffer/contracts';
import { readFile } from 'node:fs/promises';
import { databaseFiles } from './test-support/db-search';
import { startKvHarness } from './test-support/kv-harness';

it('residual', async () => {
  const h = await startKvHarness('kv_resid');
  const mount = h.mount('kv-v2');
  await h.call(kvV2.dataWrite, { mount, operation: 'update', path: 'data/a', body: { data: { a: 1 } } });
  const [row] = await h.database.db.withSchema('kv').selectFrom('data_keys').select(['wrapped']).execute();
  await h.call(kvV2.versionsDestroy, { mount, operation: 'update', path: 'destroy/a', body: { versions: [1] } });
  for (const f of await databaseFiles(h.database.db)) {
    const c = await readFile(f).catch(() => Buffer.alloc(0));
    if (c.includes(row.wrapped)) console.log('wrapped key bytes in', f);
  }
  await h.close();
});
