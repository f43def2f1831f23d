import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import pg from 'pg';
import { ManagedProcess, freePort } from '@coffer/testing';
import type { Summary } from '../../tools/lib/stats';
import { runHttpLoad } from './http-load';
import { runClosedLoop } from './loop';

export interface LoadShape {
  durationSeconds: number;
  /** HTTP connections, and requests in flight for the loop-driven baselines */
  connections: number;
}

/** A bare Fastify route returning a constant, driven by autocannon like the gateway. */
export async function fastifyBaseline(shape: LoadShape): Promise<Summary> {
  const port = await freePort();
  const server = ManagedProcess.launch({
    name: 'fastify-baseline',
    entry: 'bench/baselines/fastify-server.ts',
    args: [String(port)],
  });
  try {
    await server.waitForLine(/^listening /);
    return await runHttpLoad({
      title: 'fastify constant',
      origin: `http://127.0.0.1:${port}`,
      connections: shape.connections,
      durationSeconds: shape.durationSeconds,
      path: () => '/',
    });
  } finally {
    await server.stop();
  }
}

/** A bare NATS request-reply echo to a responder in another process, `connections` in flight. */
export async function natsBaseline(shape: LoadShape, natsUrl: string): Promise<Summary> {
  const subject = `bench.${randomUUID()}.echo`;
  const responder = ManagedProcess.launch({
    name: 'nats-echo',
    entry: 'bench/baselines/nats-echo.ts',
    args: [natsUrl, subject],
  });
  const nc = await connect({ servers: natsUrl, name: 'coffer-bench' });
  try {
    await responder.waitForLine(/^ready$/);
    const payload = Buffer.from(JSON.stringify({ operation: 'read', path: 'data/bench/r-1', body: {} }));
    return await runClosedLoop({
      durationSeconds: shape.durationSeconds,
      inflight: shape.connections,
      op: () => nc.request(subject, payload, { timeout: 5_000 }),
    });
  } finally {
    await nc.close();
    await responder.stop();
  }
}

/**
 * A bare primary-key select through a pg pool of `poolSize` connections, `connections` in
 * flight, on a throwaway database created (and dropped) for the run.
 */
export async function pgBaseline(shape: LoadShape, adminUrl: string, poolSize: number): Promise<Summary> {
  const dbName = `coffer_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: poolSize });
  // DROP ... WITH (FORCE) may terminate a connection the pool is still closing.
  pool.on('error', () => undefined);
  try {
    await pool.query('CREATE TABLE bench_kv (id integer PRIMARY KEY, value text NOT NULL)');
    await pool.query(
      `INSERT INTO bench_kv (id, value) SELECT i, md5(i::text) FROM generate_series(1, 1000) AS s(i)`,
    );
    let n = 0;
    return await runClosedLoop({
      durationSeconds: shape.durationSeconds,
      inflight: shape.connections,
      op: () =>
        pool.query({
          name: 'bench-pk',
          text: 'SELECT value FROM bench_kv WHERE id = $1',
          values: [(n++ % 1000) + 1],
        }),
    });
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.end();
  }
}
