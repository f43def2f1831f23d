import { Client } from 'pg';
import { sql } from 'kysely';
import { createTestDatabase } from './database';
import { natsUrl, pgUrl } from './test-env';
import { freePort } from './net';
import { startProcess } from './start-process';

describe('createTestDatabase', () => {
  it('creates a fresh database per call and drops it', async () => {
    const [a, b] = await Promise.all([createTestDatabase('testing lib'), createTestDatabase('testing lib')]);
    try {
      expect(a.name).not.toBe(b.name);
      expect(a.url).toContain(`/${a.name}`);
      await sql`create table t (id int8)`.execute(a.db);
      const tables = await sql<{
        n: number;
      }>`select count(*) as n from pg_tables where tablename = 't'`.execute(b.db);
      expect(tables.rows).toEqual([{ n: 0 }]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
      await a.drop();
    }
    const admin = new Client({ connectionString: pgUrl() });
    await admin.connect();
    try {
      const left = await admin.query('select datname from pg_database where datname = any($1)', [
        [a.name, b.name],
      ]);
      expect(left.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });

  it('points at the local services by default', () => {
    expect(pgUrl('x')).toMatch(/^postgres:\/\/.+\/x$/);
    expect(natsUrl()).toMatch(/^nats:\/\//);
  });
});

describe('startProcess', () => {
  const node = process.execPath;

  it('waits for the ready line, collects output and kills the process group', async () => {
    const port = await freePort();
    const proc = await startProcess({
      cmd: node,
      args: [
        '-e',
        `console.error('booting'); require('http').createServer().listen(${port}, () => console.log('listening on ' + ${port}));`,
      ],
      readyLine: /listening on \d+/,
      timeoutMs: 10_000,
    });
    expect(proc.stdout).toEqual([`listening on ${port}`]);
    expect(proc.stderr).toEqual(['booting']);
    expect(await proc.waitForLine(/booting/)).toBe('booting');
    await expect(proc.waitForLine(/never/, { timeoutMs: 50 })).rejects.toThrow('did not print');
    const exit = await proc.kill();
    expect(exit.signal).toBe('SIGTERM');
    await expect(proc.exited).resolves.toEqual(exit);
  });

  it('fails fast with the output when the process exits before it is ready', async () => {
    await expect(
      startProcess({
        cmd: node,
        args: ['-e', "console.log('config error: missing key'); process.exit(3)"],
        env: { COFFER_TEST_UNUSED: 'x' },
        readyLine: /ready/,
      }),
    ).rejects.toThrow(/exited \(code 3.*\n[\s\S]*config error: missing key/);
  });

  it('passes env and cwd', async () => {
    const proc = await startProcess({
      cmd: node,
      args: ['-e', 'console.log(process.env.COFFER_PROBE + " " + process.cwd())'],
      env: { COFFER_PROBE: 'hello' },
      cwd: '/tmp',
    });
    expect(await proc.waitForLine(/hello/)).toBe('hello /tmp');
    await expect(proc.exited).resolves.toEqual({ code: 0, signal: null });
  });
});

describe('freePort', () => {
  it('returns distinct bindable ports', async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    for (const p of ports) expect(p).toBeGreaterThan(0);
  });
});
