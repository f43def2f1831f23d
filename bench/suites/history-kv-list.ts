import { sql } from 'kysely';
import { Barrier, createKeyring } from '@coffer/barrier';
import { createServiceEventStore, migrateSchema, type AnyDb, type NewEvent } from '@coffer/event-store';
import { KV_LOGS, KV_SCHEMA, KvListHistoryService, kvMigrations } from '@coffer/kv';
import { LatencyRecorder } from '../../tools/lib/stats';
import type { Scenario } from '../lib/suite';

/** A kv v2 mount's log of one million events: 200 folders of 100 keys, 50 versions each. */
const FOLDERS = 200;
const KEYS_PER_FOLDER = 100;
const VERSIONS = 50;
const IN_FLIGHT = 16;
const START = Date.parse('2025-01-01T00:00:00Z');
const STEP_MS = 1_000;
const MOUNT = '0b9f6a52-6c1e-4d55-9d8c-3e0f4a1b2c3d';
const QUESTIONS = 200;

const randomInt = (max: number) => Math.floor(Math.random() * max);

/** The sealed data is not read by a LIST: a fixed ciphertext keeps the fill cheap. */
function versionWritten(version: number, createdTime: string): NewEvent {
  return {
    type: 'SecretVersionWritten',
    version: 1,
    data: { version, createdTime, deletionTime: null, keyId: `k-${version}`, ciphertext: 'AAAA' },
  };
}

/**
 * kv LISTs at a time on a kv log of one million real events (encrypted, hash-chained, appended
 * through the event store's group-commit writer), queried in process as kv's history handler
 * does: `metadata/app/<folder>/` at a random instant. A tenth of the keys are deleted (metadata
 * delete) in the second round, so the answers change over time.
 */
export async function historyKvListScenarios(db: AnyDb, log: (line: string) => void): Promise<Scenario[]> {
  await migrateSchema(db, KV_SCHEMA, kvMigrations);
  const cipher = new Barrier();
  cipher.load(createKeyring());
  let tick = 0;
  const clock = () => new Date(START + tick++ * STEP_MS);
  const store = createServiceEventStore({ db, schema: KV_SCHEMA, cipher, clock }, KV_LOGS);
  const total = FOLDERS * KEYS_PER_FOLDER * VERSIONS;
  log(`  appending ${total} kv events (${FOLDERS * KEYS_PER_FOLDER} keys, ${VERSIONS} versions each)...`);
  const filled = performance.now();
  const jobs: (() => Promise<unknown>)[] = [];
  // two rounds of 25 versions per key, so every folder's keys interleave through the log
  const PER_APPEND = VERSIONS / 2;
  for (let round = 0; round < 2; round++) {
    for (let f = 0; f < FOLDERS; f++) {
      for (let k = 0; k < KEYS_PER_FOLDER; k++) {
        const stream = `kv/${MOUNT}/app/${f}/key-${k}`;
        const events = Array.from({ length: PER_APPEND }, (_, v) =>
          versionWritten(round * PER_APPEND + v + 1, new Date(START).toISOString()),
        );
        if (round === 1 && k % 10 === 0)
          events.push({ type: 'SecretMetadataDeleted', version: 1, data: { versions: [] } });
        jobs.push(() => store.append(stream, events, { expectedVersion: 'any' }));
      }
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < jobs.length) await jobs[next++]?.();
    }),
  );
  const head = await store.head();
  const fillSeconds = (performance.now() - filled) / 1000;
  log(`  ${head.lastWal} kv events appended in ${fillSeconds.toFixed(0)} s`);
  // a live Postgres analyzes a table after such a bulk insert (autovacuum is off on the test one)
  await sql`analyze`.execute(db);

  const lists = new KvListHistoryService(store);
  const recorder = new LatencyRecorder();
  const started = performance.now();
  for (let q = 0; q < QUESTIONS; q++) {
    const at = new Date(START + randomInt(head.lastWal) * STEP_MS);
    const t0 = performance.now();
    await lists.listAt(MOUNT, `app/${randomInt(FOLDERS)}/`, at, true);
    recorder.record(performance.now() - t0);
  }
  const summary = { ...recorder.summarize((performance.now() - started) / 1000), non2xx: 0 };
  const name = 'history state-at-T kv LIST, 1M events';
  log(`  ${name}: p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms (${QUESTIONS} samples)`);
  return [{ name, summary }];
}
