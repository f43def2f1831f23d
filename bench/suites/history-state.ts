import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { Barrier, createKeyring } from '@coffer/barrier';
import type { CallerContext } from '@coffer/contracts';
import { CORE_SYS_SCHEMA, createCoreSysEventStore, createHistoryQueries } from '@coffer/core-sys';
import type { AnyDb, EventStore, NewEvent } from '@coffer/event-store';
import { LatencyRecorder } from '../../tools/lib/stats';
import type { Scenario } from '../lib/suite';

/** What the core_sys log holds: policies edited over and over, and tokens created and revoked. */
const EVENTS = 1_000_000;
const POLICIES = 2_000;
const TOKENS = 2_000;
/** policy edits per append (one stream per append; group commit batches them further) */
const EDITS_PER_APPEND = 250;
const IN_FLIGHT = 16;
const START = Date.parse('2025-01-01T00:00:00Z');
const STEP_MS = 1_000;
/** who-could-read questions a fresh process answers first (reported on their own too) */
const FIRST_QUESTIONS = 20;
const ACCESS_QUESTIONS = 120;

const ROOT: CallerContext = {
  requestId: 'bench',
  namespace: '',
  clientAddress: '127.0.0.1',
  policies: ['root'],
  root: true,
  sudo: true,
};

const policyText = (i: number, edit: number) =>
  `path "secret/app/${i % 100}/*" { capabilities = ["read"] }\n# edit ${edit}`;

function tokenCreated(i: number, createdAt: number): NewEvent {
  return {
    type: 'TokenCreated',
    version: 1,
    data: {
      accessor: `acc-${i}`,
      tokenHash: `hash-${i}`,
      tokenRef: `ref-${i}`,
      parentAccessor: null,
      policies: [`p-${i % POLICIES}`],
      meta: {},
      displayName: 'token',
      numUses: 0,
      renewable: false,
      creationTtl: 0,
      renewTtl: 0,
      backendMaxTtl: 0,
      explicitMaxTtl: 0,
      period: 0,
      createdAt,
      expiresAt: 0,
      path: 'auth/token/create',
      entityId: '',
      mountAccessor: '',
    },
  };
}

/** Runs `jobs` with at most IN_FLIGHT at once (so group commit has appends to batch). */
async function pool(jobs: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      if (job) await job();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

const randomInt = (max: number) => Math.floor(Math.random() * max);

/**
 * Appends the bench's core_sys log through the event store's own group-commit writer: 2,000
 * policies edited over and over, 2,000 tokens created, a quarter of them revoked a while later.
 */
export async function fillHistoryLog(
  store: EventStore,
  log: (line: string) => void,
): Promise<{ lastWal: number; fillSeconds: number }> {
  log(`  appending ${EVENTS} core_sys events (policy edits, tokens created and revoked)...`);
  const fillStarted = performance.now();
  const appends = Math.ceil((EVENTS - TOKENS - TOKENS / 4) / EDITS_PER_APPEND);
  const jobs: (() => Promise<unknown>)[] = [];
  for (let a = 0; a < appends; a++) {
    const i = a % POLICIES;
    const round = Math.floor(a / POLICIES);
    jobs.push(() =>
      store.append(
        `policy/acl/p-${i}`,
        Array.from({ length: EDITS_PER_APPEND }, (_, e) => ({
          type: 'PolicyWritten',
          version: 1,
          data: { name: `p-${i}`, policy: policyText(i, round * EDITS_PER_APPEND + e) },
        })),
        { expectedVersion: 'any' },
      ),
    );
    // tokens spread over the log; a quarter of them revoked a while later
    const t = Math.floor((a * TOKENS) / appends);
    if (Math.floor(((a + 1) * TOKENS) / appends) > t) {
      jobs.push(() => store.append(`token/acc-${t}`, [tokenCreated(t, START)], { expectedVersion: 0 }));
    }
    const r = t - 200;
    if (r >= 0 && r % 4 === 0 && Math.floor(((a + 1) * TOKENS) / appends) > t) {
      jobs.push(() =>
        store.append(
          `token/acc-${r}`,
          [{ type: 'TokenRevoked', version: 1, data: { reason: 'revoked', revokedAt: START } }],
          { expectedVersion: 'any' },
        ),
      );
    }
  }
  await pool(jobs);
  const head = await store.head();
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  log(`  ${head.lastWal} events appended in ${fillSeconds.toFixed(0)} s`);
  return { lastWal: head.lastWal, fillSeconds };
}

/**
 * State at a time and who-could-read on a core_sys log of one million real events (encrypted,
 * hash-chained, appended through the event store's own group-commit writer in bulk, not over
 * HTTP), queried in process as the history handlers do.
 */
export async function historyStateScenarios(db: AnyDb, log: (line: string) => void): Promise<Scenario[]> {
  const cipher = new Barrier();
  cipher.load(createKeyring());
  let tick = 0;
  const clock = () => new Date(START + tick++ * STEP_MS);
  const runtime = { db, schema: CORE_SYS_SCHEMA, cipher, clock };
  const store = createCoreSysEventStore(runtime);

  const { lastWal, fillSeconds } = await fillHistoryLog(store, log);
  const head = { lastWal };

  const { states, access, index, warmer } = createHistoryQueries(runtime, store);
  // the history indexer keeps the access index at the head in the background: build it first
  const indexStarted = performance.now();
  await index.catchUp(head.lastWal);
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  log(`  access index of ${head.lastWal} events built in ${indexSeconds.toFixed(1)} s`);
  // autovacuum is off on the test Postgres; a live one analyzes a table after such a bulk insert
  // (without statistics the planner guesses 5,000 events per stream and plans parallel scans)
  await sql`analyze`.execute(db);
  // then the indexer's first pass parses the policy versions into the cache, in the background (as
  // at process start, once the index is caught up): the questions below start after it
  // (the longest the event loop stood still meanwhile: what a live request could wait on it)
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const warmStarted = performance.now();
  const warmed = await warmer.warm(head.lastWal);
  const warmSeconds = (performance.now() - warmStarted) / 1000;
  stalls.disable();
  log(
    `  policy cache warm-up: ${warmed} policy versions parsed in ${warmSeconds.toFixed(1)} s, ` +
      `event loop delay max ${(stalls.max / 1e6).toFixed(1)} ms, p99 ${(stalls.percentile(99) / 1e6).toFixed(1)} ms`,
  );
  const timed = async (name: string, samples: number, query: () => Promise<unknown>): Promise<Scenario> => {
    const recorder = new LatencyRecorder();
    const started = performance.now();
    for (let s = 0; s < samples; s++) {
      const t0 = performance.now();
      await query();
      recorder.record(performance.now() - t0);
    }
    const summary = { ...recorder.summarize((performance.now() - started) / 1000), non2xx: 0 };
    log(`  ${name}: p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms (${samples} samples)`);
    return { name, summary };
  };
  const atWal = () => String(1 + randomInt(head.lastWal));
  const whoCouldRead = () =>
    access.accessAt({ path: `secret/app/${randomInt(100)}/x`, operation: 'read', at: atWal() }, '');
  /** the who-could-read questions of a process that has just started: all of them, and its first ones */
  const accessFromStart = async (): Promise<Scenario[]> => {
    const all = new LatencyRecorder();
    const first = new LatencyRecorder();
    const started = performance.now();
    let firstSeconds = 0;
    for (let q = 0; q < ACCESS_QUESTIONS; q++) {
      const t0 = performance.now();
      await whoCouldRead();
      const ms = performance.now() - t0;
      all.record(ms);
      if (q < FIRST_QUESTIONS) first.record(ms);
      if (q === FIRST_QUESTIONS - 1) firstSeconds = (performance.now() - started) / 1000;
    }
    const scenarios = [
      {
        name: `history access, first ${FIRST_QUESTIONS} questions of a process, 1M events`,
        summary: { ...first.summarize(firstSeconds), non2xx: 0 },
      },
      {
        name: 'history access (who could read), 1M events',
        summary: { ...all.summarize((performance.now() - started) / 1000), non2xx: 0 },
      },
    ];
    for (const { name, summary } of scenarios) {
      log(
        `  ${name}: p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms (${summary.count} samples)`,
      );
    }
    return scenarios;
  };
  const atTime = () => new Date(START + randomInt(head.lastWal) * STEP_MS).toISOString();

  return [
    {
      name: 'history state: core_sys log fill (events/s)',
      summary: {
        count: head.lastWal,
        errors: 0,
        durationSeconds: fillSeconds,
        rps: head.lastWal / fillSeconds,
        p50: 0,
        p99: 0,
        non2xx: 0,
      },
    },
    {
      name: 'history access index build (events/s)',
      summary: {
        count: head.lastWal,
        errors: 0,
        durationSeconds: indexSeconds,
        rps: head.lastWal / indexSeconds,
        p50: 0,
        p99: 0,
        non2xx: 0,
      },
    },
    {
      name: 'history policy cache warm-up (versions/s)',
      summary: {
        count: warmed,
        errors: 0,
        durationSeconds: warmSeconds,
        rps: warmed / warmSeconds,
        p50: 0,
        p99: 0,
        non2xx: 0,
      },
    },
    await timed('history state-at-T policy, 1M events', 300, () =>
      states.state(`sys/policies/acl/p-${randomInt(POLICIES)}`, atWal(), ROOT).catch(() => undefined),
    ),
    await timed('history state-at-T token lookup, 1M events', 300, () =>
      states
        .state(`auth/token/lookup-accessor/acc-${randomInt(TOKENS)}`, atTime(), ROOT)
        .catch(() => undefined),
    ),
    await timed('history state-at-T policy list, 1M events', 100, () =>
      states.state('sys/policies/acl', atWal(), ROOT),
    ),
    // the first questions of the process included: the target row counts all of them
    ...(await accessFromStart()),
  ];
}
