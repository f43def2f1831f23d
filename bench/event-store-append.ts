import { Command, InvalidArgumentError } from 'commander';
import { sql } from 'kysely';
import { z } from 'zod';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  createPgDb,
  createPgliteDb,
  defineEvent,
  EventRegistry,
  EventStore,
  migrateSchema,
  type AnyTrx,
  type AppendedEvent,
  type DbHandle,
  type ManyProjection,
} from '@coffer/event-store';
import { createTestDatabase } from '@coffer/testing';

/**
 * Append throughput of one service's event log on real Postgres: `writers` concurrent loops, each
 * appending one event to a fresh stream (expectedVersion 0) and awaiting it, for `duration`
 * seconds, through `replicas` EventStore instances with a pool of `pool` connections each (one
 * per simulated process). `--project` adds a one-row read-model upsert per append, like a kv
 * write (`--many`: one multi-row upsert for a batch's appends, as kv version writes do); `--pglite` runs on in-memory PGlite (dev mode) instead, one replica. Prints appends/s,
 * latency percentiles and the mean number of appends per transaction.
 *
 *   node -r ./tools/register.js bench/event-store-append.ts [--project] [--writers 64] ...
 */
interface Options {
  writers: number;
  pool: number;
  duration: number;
  replicas: number;
  project: boolean;
  many: boolean;
  pglite: boolean;
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const SCHEMA = 'probe';
const Written = defineEvent('ThingWritten', 1, z.object({ value: z.string() }));

const projectThing = async (trx: AnyTrx, events: AppendedEvent[]): Promise<void> => {
  const last = events[events.length - 1];
  if (!last) return;
  await sql`insert into ${sql.table(`${SCHEMA}.things`)} (stream, version) values (${last.stream}, ${last.streamVersion})
            on conflict (stream) do update set version = excluded.version`.execute(trx);
};

/** The same upsert for a run of a batch's appends, in one statement (see ManyProjection). */
const projectThings: ManyProjection = {
  apply: async (trx, appends) => {
    const lasts = appends.map((a) => a.events[a.events.length - 1]);
    await sql`insert into ${sql.table(`${SCHEMA}.things`)} (stream, version)
              select * from unnest(${lasts.map((e) => e?.stream ?? '')}::text[], ${lasts.map((e) => e?.streamVersion ?? 0)}::int8[])
              on conflict (stream) do update set version = excluded.version`.execute(trx);
    return appends.map(() => undefined);
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function main(opts: Options): Promise<void> {
  const testDb = opts.pglite ? undefined : await createTestDatabase('es_append');
  const handles: DbHandle[] = [];
  try {
    const barrier = new Barrier();
    barrier.load(createKeyring());
    const registry = new EventRegistry([Written]);
    if (testDb) {
      for (let r = 0; r < opts.replicas; r++) handles.push(createPgDb(testDb.url, { max: opts.pool }));
    } else {
      handles.push(createPgliteDb());
    }
    const first = handles[0];
    if (!first) throw new Error('no replica');
    await migrateSchema(first.db, SCHEMA, {
      '0001_things': {
        up: async (m) => {
          await sql`create table things (stream text primary key, version int8 not null)`.execute(m);
        },
      },
    });
    const stores = handles.map(
      (h) => new EventStore({ db: h.db, schema: SCHEMA, cipher: barrier, registry }),
    );

    const latencies: number[] = [];
    const end = Date.now() + opts.duration * 1000;
    await Promise.all(
      Array.from({ length: opts.writers }, async (_, w) => {
        const store = stores[w % stores.length] as EventStore;
        for (let i = 0; Date.now() < end; i++) {
          const started = performance.now();
          await store.append(`thing/${w}/${i}`, [Written.create({ value: 'x'.repeat(64) })], {
            expectedVersion: 0,
            ...(opts.project || opts.many ? { project: projectThing } : {}),
            ...(opts.many ? { projectMany: { projection: projectThings, context: null } } : {}),
          });
          latencies.push(performance.now() - started);
        }
      }),
    );

    const { rows } = await sql<{ appends: number; transactions: number }>`
      select count(distinct stream)::int8 as appends, count(distinct xmin::text)::int8 as transactions
        from ${sql.table(`${SCHEMA}.event_log`)}`.execute(first.db);
    const stats = rows[0];
    const chain = await stores[0]!.verifyChain();
    latencies.sort((a, b) => a - b);
    const report = {
      ...opts,
      appendsPerSecond: Math.round(latencies.length / opts.duration),
      p50Ms: Number(percentile(latencies, 50).toFixed(2)),
      p99Ms: Number(percentile(latencies, 99).toFixed(2)),
      appendsPerTransaction: stats ? Number((stats.appends / stats.transactions).toFixed(1)) : 0,
      chainOk: chain.ok,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await Promise.all(handles.map((h) => h.close()));
    await testDb?.drop();
  }
}

const program = new Command()
  .option('--writers <n>', 'concurrent append loops', positiveInt, 64)
  .option('--pool <n>', 'connections per replica', positiveInt, 20)
  .option('--duration <s>', 'seconds', positiveInt, 5)
  .option('--replicas <n>', 'EventStore instances, one pool each', positiveInt, 1)
  .option('--project', 'a one-row read-model upsert per append', false)
  .option('--many', 'the same upsert, for all the appends of a batch in one statement', false)
  .option('--pglite', 'in-memory PGlite instead of Postgres (one replica)', false)
  .parse();

main(program.opts<Options>()).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
