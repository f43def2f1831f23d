import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startCluster, startDevServer } from '../test/support';
import { prepareKv } from './suites/kv.suite';
import { PKI_BENCH_MOUNT, preparePki } from './suites/pki.suite';
import { runHttpLoad } from './lib/http-load';
import { summariseProfile, type Window } from './lib/cpu-profile';

/**
 * Cluster-mode CPU profiles of the KV hot path: starts the cluster with every app under
 * `--cpu-prof`, drives KV v2 reads and writes through the gateway, stops the cluster (each app
 * writes its .cpuprofile on exit) and prints the top self-time entries per process.
 * `node -r ./tools/register.js bench/profile.ts --dir /tmp/prof --duration 10`
 */
interface Options {
  dir: string;
  duration: number;
  connections: number;
  top: number;
  scenarios: string[];
  mode: 'cluster' | 'dev';
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const opts = new Command()
    .option('--dir <dir>', 'where the .cpuprofile files go', '/tmp/coffer-profiles')
    .option('--duration <seconds>', 'seconds per scenario', positiveInt, 10)
    .option('--connections <n>', 'HTTP connections', positiveInt, 64)
    .option('--top <n>', 'entries per process', positiveInt, 25)
    .option('--scenarios <list>', 'read,write,cubbyhole,sign (pki)', (v) => v.split(','), ['read', 'write'])
    .option('--mode <mode>', 'cluster (every app its own process) or dev (npm start)', 'cluster')
    .parse(process.argv)
    .opts<Options>();
  const dir = path.resolve(opts.dir);
  await mkdir(dir, { recursive: true });
  const before = new Set(await readdir(dir));
  // The launcher merges this process's environment into every app it starts (NODE_OPTIONS
  // refuses --cpu-prof, hence the preload).
  process.env['NODE_OPTIONS'] = `--require ${path.join(__dirname, 'lib', 'cpu-prof-preload.js')}`;
  process.env['COFFER_CPU_PROF_DIR'] = dir;
  const pids = new Map<number, string>();
  const cluster =
    opts.mode === 'dev'
      ? await startDevServer().then((d) => {
          if (d.process.pid !== undefined) pids.set(d.process.pid, 'dev');
          return d;
        })
      : await startCluster({ label: 'profile' }).then((c) => {
          const pki = c.processes.services['pki'] ?? [];
          for (const p of [c.processes.gateway, c.processes.coreSys, ...c.processes.kv, ...pki])
            if (p.pid !== undefined) pids.set(p.pid, p.name);
          return c;
        });
  delete process.env['NODE_OPTIONS'];
  delete process.env['COFFER_CPU_PROF_DIR'];
  const window: Window = { fromUs: 0, toUs: 0, requests: 0 };
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  try {
    const target = { baseUrl: cluster.baseUrl, rootToken: cluster.rootToken };
    await prepareKv(target);
    const csr = opts.scenarios.includes('sign') ? await preparePki(target) : '';
    window.fromUs = nowUs();
    const common = {
      origin: target.baseUrl,
      connections: opts.connections,
      durationSeconds: opts.duration,
      headers: { 'x-vault-token': target.rootToken },
    };
    if (opts.scenarios.includes('write')) {
      const s = await runHttpLoad({
        ...common,
        title: 'write',
        method: 'POST',
        body: JSON.stringify({ data: { value: 'x'.repeat(32) } }),
        path: (n) => `/v1/secret/data/bench/w-${n % 1000}`,
      });
      window.requests += s.count + s.non2xx;
      log(`write: ${Math.round(s.rps)} req/s p50 ${s.p50} p99 ${s.p99} non2xx ${s.non2xx}`);
    }
    if (opts.scenarios.includes('read')) {
      const s = await runHttpLoad({
        ...common,
        title: 'read',
        path: (n) => `/v1/secret/data/bench/r-${n % 100}`,
      });
      window.requests += s.count + s.non2xx;
      log(`read: ${Math.round(s.rps)} req/s p50 ${s.p50} p99 ${s.p99} non2xx ${s.non2xx}`);
    }
    if (opts.scenarios.includes('cubbyhole')) {
      const s = await runHttpLoad({ ...common, title: 'cubbyhole', path: () => '/v1/cubbyhole/bench' });
      window.requests += s.count + s.non2xx;
      log(`cubbyhole: ${Math.round(s.rps)} req/s p50 ${s.p50} p99 ${s.p99} non2xx ${s.non2xx}`);
    }
    if (opts.scenarios.includes('sign')) {
      const s = await runHttpLoad({
        ...common,
        title: 'sign',
        method: 'POST',
        body: JSON.stringify({ csr, ttl: '1h' }),
        path: () => `/v1/${PKI_BENCH_MOUNT}/sign/client`,
      });
      window.requests += s.count + s.non2xx;
      log(`sign: ${Math.round(s.rps)} req/s p50 ${s.p50} p99 ${s.p99} non2xx ${s.non2xx}`);
    }
    window.toUs = nowUs();
  } finally {
    await cluster.stop();
  }
  const written = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  for (const file of written) {
    const pid = Number(file.replace('.cpuprofile', ''));
    const name = pids.get(pid) ?? `pid ${pid}`;
    process.stdout.write(
      `\n## ${name} (${file})\n${await summariseProfile(path.join(dir, file), opts.top, window)}\n`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
