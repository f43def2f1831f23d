import { Client } from 'pg';
import { sql } from 'kysely';
import { createTestDatabase } from './database';
import { natsUrl, pgUrl } from './test-env';
import { freePort } from './net';
import { ManagedProcess } from './managed-process';

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

describe('ManagedProcess', () => {
  const node = process.execPath;

  it('waits for a line, keeps the output and stops the process', async () => {
    const port = await freePort();
    const proc = ManagedProcess.start({
      name: 'listener',
      cmd: node,
      args: [
        '-e',
        `console.error('booting'); require('http').createServer().listen(${port}, () => console.log('listening on ' + ${port}));`,
      ],
    });
    expect(await proc.waitForLine(/listening on \d+/, 10_000)).toBe(`listening on ${port}`);
    expect(await proc.waitForLine(/booting/)).toBe('booting');
    await expect(proc.waitForLine(/never/, 50)).rejects.toThrow('no match within 50 ms');
    const exit = await proc.stop();
    expect(exit.signal).toBe('SIGTERM');
    await expect(proc.exited).resolves.toEqual(exit);
    expect(proc.running).toBe(false);
  });

  it('fails fast with the output when the process exits before the line', async () => {
    const proc = ManagedProcess.start({
      name: 'broken',
      cmd: node,
      args: ['-e', "console.log('config error: missing key'); process.exit(3)"],
      env: { COFFER_TEST_UNUSED: 'x' },
    });
    await expect(proc.waitForLine(/ready/)).rejects.toThrow(
      /exited \(code 3.*\n[\s\S]*config error: missing key/,
    );
  });

  it('passes env and cwd', async () => {
    const proc = ManagedProcess.start({
      name: 'probe',
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
