import { kvV2, kvV1 } from '@coffer/contracts';
import { startKvHarness, type KvHarness } from './test-support/kv-harness';

describe('bench', () => {
  let h: KvHarness;
  beforeAll(async () => {
    h = await startKvHarness('kv_bench');
  });
  afterAll(async () => {
    await h?.close();
  });
  it('measures', async () => {
    const mount = h.mount('kv-v2');
    let t = Date.now();
    for (let i = 0; i < 200; i++) await h.call(kvV2.dataWrite, { mount, operation: 'update', path: `data/k${i % 20}`, body: { data: { i } } });
    console.log('seq write ms/op', (Date.now() - t) / 200);
    t = Date.now();
    for (let i = 0; i < 200; i++) await h.call(kvV2.dataRead, { mount, operation: 'read', path: `data/k${i % 20}` });
    console.log('seq read ms/op', (Date.now() - t) / 200);
    t = Date.now();
    let n = 0;
    await Promise.all(Array.from({ length: 64 }, async (_, c) => { for (let i = 0; i < 30; i++) { await h.call(kvV2.dataRead, { mount, operation: 'read', path: `data/k${(c + i) % 20}` }); n++; } }));
    console.log('conc read ops/s', n / ((Date.now() - t) / 1000));
    t = Date.now(); n = 0;
    await Promise.all(Array.from({ length: 64 }, async (_, c) => { for (let i = 0; i < 15; i++) { await h.call(kvV2.dataWrite, { mount, operation: 'update', path: `data/w${c}`, body: { data: { i } } }); n++; } }));
    console.log('conc write ops/s (distinct keys)', n / ((Date.now() - t) / 1000));
    const m1 = h.mount('kv-v1');
    t = Date.now(); n = 0;
    await Promise.all(Array.from({ length: 64 }, async (_, c) => { for (let i = 0; i < 15; i++) { await h.call(kvV1.write, { mount: m1, operation: 'update', path: `w${c}`, body: { i } }); n++; } }));
    console.log('conc v1 write ops/s', n / ((Date.now() - t) / 1000));
  }, 120000);
});
