import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { startCluster, startDevServer } from '../test/support';
import { prepareKv } from './suites/kv.suite';
import { PKI_BENCH_MOUNT, preparePki } from './suites/pki.suite';
import { runHttpLoad } from './lib/http-load';

/**
 * CPU time of Coffer's own processes per request (user + system, all threads, from
 * /proc/<pid>/stat), for KV v2 reads, cubbyhole reads, KV v2 writes and PKI signs of a client CSR
 * (the pki suite's mount and role); in cluster mode also the
 * Postgres backends serving the cluster's own database (found by its name in their titles). On a shared machine req/s swing with the other load
 * by 3-10x; CPU per request does not (it only grows a little with cache misses), so it is the
 * figure to compare before/after a change. NATS is shared with other users and is not counted.
 * `node -r ./tools/register.js bench/cpu-per-request.ts --mode dev --duration 5`
 */
interface Options {
  mode: 'dev' | 'cluster';
  duration: number;
  connections: number;
  rate?: number;
  scenarios: string[];
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

/** utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // the command name (field 2) may contain spaces: count fields after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Postgres backends whose process title names `database` (`postgres: [<cluster>:] <user> <db> <host> ...`). */
async function backendsOf(database: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('postgres: ') && cmdline.split(' ').includes(database)) pids.push(Number(entry));
  }
  return pids;
}

/** CPU ms of every backend of `database` now (a backend gone since counts what it had used). */
async function backendsCpuMs(database: string, seen: Map<number, number>): Promise<number> {
  for (const pid of await backendsOf(database)) {
    const used = await cpuMs(pid).catch(() => undefined);
    if (used !== undefined) seen.set(pid, used);
  }
  let total = 0;
  for (const used of seen.values()) total += used;
  return total;
}

async function main(): Promise<void> {
  const opts = new Command()
    .option('--mode <mode>', 'dev or cluster', 'dev')
    .option('--duration <seconds>', 'seconds per scenario', positiveInt, 5)
    .option('--connections <n>', 'HTTP connections', positiveInt, 64)
    .option('--rate <n>', 'fixed request rate instead of as fast as possible', positiveInt)
    .option(
      '--scenarios <list>',
      'kv,cubbyhole,write,pki-sign in any order and number',
      (v) => v.split(','),
      ['kv', 'cubbyhole'],
    )
    .parse(process.argv)
    .opts<Options>();
  const pids = new Map<string, number>();
  let database: string | undefined;
  const server =
    opts.mode === 'dev'
      ? await startDevServer().then((d) => {
          if (d.process.pid !== undefined) pids.set('dev', d.process.pid);
          return d;
        })
      : await startCluster({ label: 'cpureq', readyTimeoutMs: 240_000 }).then((c) => {
          const pki = opts.scenarios.includes('pki-sign') ? (c.processes.services['pki'] ?? []) : [];
          for (const p of [c.processes.gateway, c.processes.coreSys, ...c.processes.kv, ...pki])
            if (p.pid !== undefined) pids.set(p.name, p.pid);
          database = new URL(c.databaseUrl).pathname.slice(1);
          return c;
        });
  try {
    const target = { baseUrl: server.baseUrl, rootToken: server.rootToken };
    await prepareKv(target);
    const csr = opts.scenarios.includes('pki-sign') ? await preparePki(target) : '';
    const write = {
      method: 'POST',
      body: JSON.stringify({ data: { value: randomBytes(24).toString('base64') } }),
    };
    const known: Record<string, [string, (n: number) => string, { method?: string; body?: string }]> = {
      kv: ['KV v2 read', (n) => `/v1/secret/data/bench/r-${n % 100}`, {}],
      cubbyhole: ['cubbyhole read', () => '/v1/cubbyhole/bench', {}],
      write: ['KV v2 write', (n) => `/v1/secret/data/bench/w-${n % 1000}`, write],
      'pki-sign': [
        'PKI sign CSR',
        () => `/v1/${PKI_BENCH_MOUNT}/sign/client`,
        { method: 'POST', body: JSON.stringify({ csr, ttl: '1h' }) },
      ],
    };
    const pgSeen = new Map<number, number>();
    for (const scenario of opts.scenarios) {
      const chosen = known[scenario];
      if (!chosen) throw new Error(`unknown scenario ${scenario}`);
      const [name, path, request] = chosen;
      // warm-up: JIT, caches and connections, not counted
      await runHttpLoad({
        title: 'warm-up',
        origin: target.baseUrl,
        connections: opts.connections,
        durationSeconds: 2,
        headers: { 'x-vault-token': target.rootToken },
        path,
        ...request,
      });
      const before = new Map<string, number>();
      for (const [proc, pid] of pids) before.set(proc, await cpuMs(pid));
      const pgBefore = database === undefined ? 0 : await backendsCpuMs(database, pgSeen);
      const s = await runHttpLoad({
        title: name,
        origin: target.baseUrl,
        connections: opts.connections,
        durationSeconds: opts.duration,
        ...(opts.rate !== undefined ? { overallRate: opts.rate } : {}),
        headers: { 'x-vault-token': target.rootToken },
        path,
        ...request,
      });
      const requests = s.count + s.non2xx;
      const parts: string[] = [];
      let total = 0;
      for (const [proc, pid] of pids) {
        const used = (await cpuMs(pid)) - (before.get(proc) ?? 0);
        total += used;
        parts.push(`${proc} ${((used * 1000) / requests).toFixed(0)}`);
      }
      if (database !== undefined) {
        const used = (await backendsCpuMs(database, pgSeen)) - pgBefore;
        total += used;
        parts.push(`postgres ${((used * 1000) / requests).toFixed(0)}`);
      }
      process.stdout.write(
        `${opts.mode} ${name}: ${Math.round(s.rps)} req/s p99 ${s.p99} ms, ${requests} requests, ` +
          `${((total * 1000) / requests).toFixed(0)} µs CPU per request (${parts.join(', ')})\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
