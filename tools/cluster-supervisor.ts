import 'reflect-metadata';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Command, InvalidArgumentError } from 'commander';
import { loadServerConfigFile, listenerFor, type ServerConfig } from '@coffer/config';
import { ENGINES } from '@coffer/engines';
import { Client } from 'pg';
import { initialize, sealStatus, unseal, waitForEngines } from '../test/support/launch/bootstrap';
import { launchCluster, type LaunchedCluster } from '../test/support/launch/cluster-launcher';
import { REPO_ROOT, type ManagedProcess } from '@coffer/testing';
import { planRestart, type RestartState } from './lib/restart-backoff';

/**
 * `npm run cluster`: cluster mode on one machine. Starts every engine service of `ENGINES` (with
 * the replicas of its `service "<name>"` block) and the gateway as separate processes reading one
 * config file, prefixes their output, restarts a process that dies (with back-off, as a supervisor
 * would) and stops them all on Ctrl-C. `--init` initialises a new cluster (keys saved to a local
 * file, printed like dev mode) and unseals it with those keys on every later start, and again
 * after core-sys restarts.
 */
interface Options {
  config: string;
  init: boolean;
  keysFile: string;
  keyShares: number;
  keyThreshold: number;
  kvReplicas?: number;
}

interface KeysFile {
  keys_base64: string[];
  root_token: string;
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const COLORS = [36, 33, 35, 32, 34, 31];

function prefixer(names: string[]): (name: string, line: string) => void {
  const width = Math.max(...names.map((n) => n.length), 8);
  const tty = process.stdout.isTTY;
  const colorOf = new Map<string, number>();
  return (name, line) => {
    if (!colorOf.has(name)) colorOf.set(name, COLORS[colorOf.size % COLORS.length] ?? 36);
    const label = name.padEnd(width);
    process.stdout.write(
      tty ? `\x1b[${colorOf.get(name)}m${label}\x1b[0m | ${line}\n` : `${label} | ${line}\n`,
    );
  };
}

/** Creates the configured database when it does not exist yet (connecting to "postgres"). */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '' || name === 'postgres') return;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`create database "${name.replace(/"/g, '""')}"`);
      console.log(`created database "${name}"`);
    }
  } finally {
    await client.end();
  }
}

async function initOrUnseal(baseUrl: string, opts: Options): Promise<void> {
  const status = await sealStatus(baseUrl);
  if (!status.initialized) {
    const result = await initialize(baseUrl, opts.keyShares, opts.keyThreshold);
    const saved: KeysFile = { keys_base64: result.keysBase64, root_token: result.rootToken };
    await mkdir(path.dirname(opts.keysFile), { recursive: true });
    await writeFile(opts.keysFile, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    console.log(`\nInitialised. The keys are saved in ${path.relative(process.cwd(), opts.keysFile)}:\n`);
    if (result.keysBase64.length === 1) console.log(`Unseal Key: ${result.keysBase64[0]}`);
    else result.keysBase64.forEach((key, i) => console.log(`Unseal Key ${i + 1}: ${key}`));
    console.log(`Root Token: ${result.rootToken}\n`);
  }
  if (!(await sealStatus(baseUrl)).sealed) return;
  let saved: KeysFile;
  try {
    saved = JSON.parse(await readFile(opts.keysFile, 'utf8')) as KeysFile;
  } catch {
    console.log(`Sealed, and no keys in ${opts.keysFile}: unseal with PUT ${baseUrl}/v1/sys/unseal`);
    return;
  }
  await unseal(baseUrl, saved.keys_base64);
  await waitForEngines(baseUrl, saved.root_token);
  console.log('Unsealed with the saved keys.');
}

function readConfig(file: string, fail: (message: string) => never): ServerConfig {
  try {
    return loadServerConfigFile(file, { env: process.env });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const program = new Command()
    .name('npm run cluster --')
    .description(
      'Run Coffer in cluster mode locally: every engine service and the gateway as separate processes.',
    )
    .option(
      '-c, --config <file>',
      'server config file',
      path.join(REPO_ROOT, 'deploy', 'local', 'cluster.hcl'),
    )
    .option(
      '--init',
      'initialise on first start (keys saved to --keys-file) and unseal on every start',
      false,
    )
    .option(
      '--keys-file <file>',
      'where --init keeps the unseal keys and root token',
      path.join(REPO_ROOT, '.coffer-data', 'cluster-keys.json'),
    )
    .option('--key-shares <n>', 'secret_shares for --init', positiveInt, 1)
    .option('--key-threshold <n>', 'secret_threshold for --init', positiveInt, 1)
    .option(
      '--kv-replicas <n>',
      'kv replicas (default: service "kv" { replicas } in the config)',
      positiveInt,
    )
    .parse(process.argv);
  const opts = program.opts<Options>();
  if (opts.keyThreshold > opts.keyShares) program.error('--key-threshold cannot exceed --key-shares');
  const configPath = path.resolve(opts.config);

  const config = readConfig(configPath, (message) => program.error(message));
  if (config.storage.type !== 'postgresql')
    return program.error('cluster mode needs storage "postgresql" in the config');
  const replicas = Object.fromEntries(
    ENGINES.map((engine) => [engine.name, config.services[engine.name]?.replicas ?? 1]),
  );
  if (opts.kvReplicas !== undefined) replicas['kv'] = opts.kvReplicas;
  const api = listenerFor(config, 'api').address;
  const ops = listenerFor(config, 'ops').address;
  const baseUrl = `http://${api}`;

  await ensureDatabase(config.storage.connectionUrl);
  const names = [
    ...ENGINES.flatMap((engine) =>
      Array.from({ length: replicas[engine.name] ?? 1 }, (_, i) => `${engine.name}-${i + 1}`),
    ),
    'gateway',
  ];
  const print = prefixer(names);
  console.log(`Starting ${names.join(', ')} with ${path.relative(process.cwd(), configPath)}`);

  // Set once the processes are up; a signal before that finds none to stop (the exit hook kills them).
  const running: { cluster?: LaunchedCluster } = {};
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping...');
    await running.cluster?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const cluster = await launchCluster({
    configPath,
    replicas,
    gatewayOpsUrl: `http://${ops}/health`,
    onLine: (name, line) => print(name, line),
  });
  running.cluster = cluster;
  // A supervisor: a process that dies is started again after a back-off, the others keep running.
  const supervise = (proc: ManagedProcess, state: RestartState): void => {
    void proc.exited.then(async (info) => {
      if (stopping) return;
      const plan = planRestart(state, Date.now());
      console.error(
        `${proc.name} exited unexpectedly (code ${info.code}, signal ${info.signal}): ` +
          `restart ${plan.attempt} in ${plan.delayMs} ms`,
      );
      await delay(plan.delayMs);
      if (stopping) return;
      try {
        const fresh = await cluster.replace(proc);
        supervise(fresh.proc, plan.next(Date.now()));
        await fresh.ready;
        console.log(`${proc.name} is serving again`);
        if (opts.init) await initOrUnseal(baseUrl, opts);
      } catch (error) {
        // A restart that dies during start-up is handled by its own exit; anything else is reported.
        console.error(
          `${proc.name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
      }
    });
  };
  for (const proc of cluster.all()) supervise(proc, { restarts: 0, startedAt: Date.now() });
  if (opts.init) await initOrUnseal(baseUrl, opts);
  console.log(
    `\nCoffer cluster is up.\n    Api Address: ${baseUrl}\n    Ops Address: http://${ops}\nPress Ctrl-C to stop.\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
