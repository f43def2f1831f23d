import 'reflect-metadata';
import { kvV2 } from '@coffer/contracts';
import { startKvHarness } from './src/test-support/kv-harness';

async function main() {
  const h = await startKvHarness('kv_prof', { replicas: 1 });
  const mount = h.mount('kv-v2');
  for (let i = 0; i < 20; i++) await h.call(kvV2.dataWrite, { mount, operation: 'update', path: `data/k${i}`, body: { data: { user: 'u', password: 'p'.repeat(20), i } } });
  const mode = process.argv[2] ?? 'read';
  const total = Number(process.argv[3] ?? 4000);
  const t = Date.now();
  const cpu0 = process.cpuUsage();
  let n = 0;
  await Promise.all(Array.from({ length: 64 }, async (_, c) => {
    while (n < total) {
      n++;
      if (mode === 'read') await h.call(kvV2.dataRead, { mount, operation: 'read', path: `data/k${(c + n) % 20}` });
      else await h.call(kvV2.dataWrite, { mount, operation: 'update', path: `data/w${c}`, body: { data: { n } } });
    }
  }));
  const cpu = process.cpuUsage(cpu0);
  console.log(mode, 'ops/s', total / ((Date.now() - t) / 1000), 'node cpu us/op', (cpu.user + cpu.system) / total);
  await h.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
