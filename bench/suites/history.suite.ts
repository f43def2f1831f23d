import { sql } from 'kysely';
import { CORE_SYS_SCHEMA, coreSysMigrations, createMerkleIndex, type MerkleIndex } from '@coffer/core-sys';
import {
  collectSubtrees,
  consistencyPath,
  inclusionPath,
  lookupFrom,
  migrateSchema,
  treeRoot,
  type AnyDb,
  type SubtreeLookup,
} from '@coffer/event-store';
import { createTestDatabase } from '@coffer/testing';
import { LatencyRecorder } from '../../tools/lib/stats';
import type { BenchSuite, Scenario } from '../lib/suite';
import { historyKvListScenarios } from './history-kv-list';
import { historyStateScenarios } from './history-state';

const EVENTS = 1_000_000;
const LOG = 'bench_history';
const INSERT_CHUNK = 100_000;
const PROOFS = 2_000;

/** A synthetic log of `count` events (the tree only reads wal and hash): bulk-inserted by Postgres. */
async function fillLog(db: AnyDb, from: number, to: number): Promise<void> {
  for (let start = from; start <= to; start += INSERT_CHUNK) {
    const end = Math.min(to, start + INSERT_CHUNK - 1);
    await sql`insert into ${sql.table(`${LOG}.event_log`)}
                (wal, stream, stream_version, type, schema_version, payload, recorded_at, hash)
              select g, 'bench/' || g, 1, 'BenchEvent', 1, '\\x00'::bytea, now(),
                     encode(sha256(int8send(g)), 'hex')
                from generate_series(${start}::int8, ${end}::int8) as g`.execute(db);
  }
}

/** One proof as the service computes it: plan, fetch the subtrees in one go, compute (signing excluded). */
async function timedProof<T>(
  index: MerkleIndex,
  size: number,
  compute: (get: SubtreeLookup) => T,
): Promise<number> {
  const started = performance.now();
  await index.catchUp(LOG, size);
  const both = (get: SubtreeLookup) => [compute(get), treeRoot(size, get)];
  both(lookupFrom(await index.subtrees(LOG, collectSubtrees(both))));
  return performance.now() - started;
}

function scenario(name: string, recorder: LatencyRecorder, seconds: number): Scenario {
  return { name, summary: { ...recorder.summarize(seconds), non2xx: 0 } };
}

/**
 * sys/history proofs on a log of one million events, in process against Postgres (the target's
 * HTTP hop adds the same ~ms to every request and is measured by the other suites): the Merkle
 * index built from scratch (events/s), then inclusion and consistency proofs at random positions,
 * each bringing the index up to date first as the service does.
 */
export const historySuite: BenchSuite = {
  name: 'history',
  targets: [
    {
      scenario: 'history inclusion proof, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'proof p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history consistency proof, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'proof p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history state-at-T policy, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'state at T p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history state-at-T token lookup, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'state at T p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history state-at-T policy list, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'state at T p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history state-at-T kv LIST, 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'state at T p99 < 50 ms on 1M events',
    },
    {
      scenario: 'history access (who could read), 1M events',
      minRps: 0,
      maxP99: 50,
      label: 'who could read p99 < 50 ms on 1M events',
    },
  ],
  async run(_target, _shape, log) {
    const database = await createTestDatabase('bench-history', { poolSize: 4 });
    try {
      await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
      await migrateSchema(database.db, LOG, {});
      log(`  filling a log of ${EVENTS} events...`);
      await fillLog(database.db, 1, EVENTS);
      const index = createMerkleIndex({ db: database.db, schema: CORE_SYS_SCHEMA, clock: () => new Date() });

      const buildStarted = performance.now();
      await index.catchUp(LOG, EVENTS);
      const buildSeconds = (performance.now() - buildStarted) / 1000;
      log(`  Merkle index of ${EVENTS} events built in ${buildSeconds.toFixed(1)} s`);
      const build: Scenario = {
        name: 'history Merkle index build (events/s)',
        summary: {
          count: EVENTS,
          errors: 0,
          durationSeconds: buildSeconds,
          rps: EVENTS / buildSeconds,
          p50: 0,
          p99: 0,
          non2xx: 0,
        },
      };

      const inclusion = new LatencyRecorder();
      let started = performance.now();
      for (let i = 0; i < PROOFS; i++) {
        const leaf = Math.floor(Math.random() * EVENTS);
        inclusion.record(await timedProof(index, EVENTS, (get) => inclusionPath(leaf, EVENTS, get)));
      }
      const inclusionScenario = scenario(
        'history inclusion proof, 1M events',
        inclusion,
        (performance.now() - started) / 1000,
      );

      const consistency = new LatencyRecorder();
      started = performance.now();
      for (let i = 0; i < PROOFS; i++) {
        const from = 1 + Math.floor(Math.random() * (EVENTS - 1));
        consistency.record(await timedProof(index, EVENTS, (get) => consistencyPath(from, EVENTS, get)));
      }
      const consistencyScenario = scenario(
        'history consistency proof, 1M events',
        consistency,
        (performance.now() - started) / 1000,
      );

      // the incremental path: 1,000 new events, then a proof of the newest one
      await fillLog(database.db, EVENTS + 1, EVENTS + 1000);
      const fresh = new LatencyRecorder();
      fresh.record(
        await timedProof(index, EVENTS + 1000, (get) => inclusionPath(EVENTS + 999, EVENTS + 1000, get)),
      );
      log(
        `  proof after 1,000 new events (index catch-up included): ${fresh.summarize(1).p99.toFixed(1)} ms`,
      );
      for (const s of [inclusionScenario, consistencyScenario]) {
        log(`  ${s.name}: p50 ${s.summary.p50.toFixed(2)} ms, p99 ${s.summary.p99.toFixed(2)} ms`);
      }
      // state at a time and who-could-read need real events: a core_sys log of its own
      const stateScenarios = await historyStateScenarios(database.db, log);
      // kv's LISTs at a time: a kv log of its own (the prefix of its stream names)
      const kvListScenarios = await historyKvListScenarios(database.db, log);
      return [
        build,
        inclusionScenario,
        consistencyScenario,
        scenario('history proof after 1,000 new events', fresh, 1),
        ...stateScenarios,
        ...kvListScenarios,
      ];
    } finally {
      await database.drop();
    }
  },
};
