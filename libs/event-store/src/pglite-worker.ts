import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { setOwn } from '@coffer/contracts';

/**
 * PGlite runs in a worker thread, for two reasons:
 *  - its WASM Postgres executes synchronously: on the main thread one slow statement would stall
 *    every request of the process (dev mode serves all services from one process);
 *  - its CommonJS build loads node builtins with dynamic import(), which module sandboxes such as
 *    jest's vm contexts reject; a worker is loaded by Node itself.
 * Values are parsed inside the worker with the same rules as pg (int8 and integral numeric as safe
 * numbers, dates via pg's own parsers), cloned back, and rebuilt here in this realm.
 */

export interface WorkerQueryResult {
  rows: Record<string, unknown>[];
  affectedRows: number;
}

const SNAPSHOT_MAGIC = 'coffer-pglite-snapshot 1';

const DATABASE_ERROR_FIELDS = [
  'code',
  'severity',
  'detail',
  'hint',
  'position',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
];

// Plain JavaScript, evaluated by the worker. Query parameters are never sent back in errors.
// pg-types rather than pg: the worker needs only the parsers, and pg itself costs ~150 ms to load.
const WORKER_SOURCE = `
const fs = require('node:fs');
const zlib = require('node:zlib');
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglitePath);
const types = require(workerData.pgTypesPath);
const FIELDS = ${JSON.stringify(['name', 'message', ...DATABASE_ERROR_FIELDS])};
const SNAPSHOT_MAGIC = ${JSON.stringify(SNAPSHOT_MAGIC)};
const safeInteger = (text) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError('integer value is beyond Number.MAX_SAFE_INTEGER');
  return n;
};
const parsers = {
  20: safeInteger,
  1700: (text) => (/^-?\\d+$/.test(text) ? safeInteger(text) : Number(text)),
  1082: types.getTypeParser(1082, 'text'),
  1114: types.getTypeParser(1114, 'text'),
  1184: types.getTypeParser(1184, 'text'),
};
const options = { ...(workerData.dataDir ? { dataDir: workerData.dataDir } : {}), parsers };
// A snapshot file is the magic line, the key line, then the data directory's tarball (gzip).
// The gzip is checked (length and CRC) before PGlite sees it: PGlite's own unpacking fails outside
// any promise and would take the worker down. Streamed, so the check leaves no 28 MB copy behind
// for an idle worker's GC that may never come.
const intactGzip = (bytes) =>
  new Promise((resolve) => {
    const gunzip = zlib.createGunzip();
    gunzip.on('data', () => undefined);
    gunzip.on('end', () => resolve(true));
    gunzip.on('error', () => resolve(false));
    gunzip.end(bytes);
  });
const readSnapshot = async () => {
  let bytes;
  try {
    bytes = fs.readFileSync(workerData.snapshotFile);
  } catch {
    return undefined;
  }
  const magicEnd = bytes.indexOf(10);
  const keyEnd = magicEnd < 0 ? -1 : bytes.indexOf(10, magicEnd + 1);
  if (keyEnd < 0 || bytes.subarray(0, magicEnd).toString() !== SNAPSHOT_MAGIC) return undefined;
  const gzipped = bytes.subarray(keyEnd + 1);
  if (!(await intactGzip(gzipped))) return undefined;
  return { key: bytes.subarray(magicEnd + 1, keyEnd).toString(), tarball: new Blob([gzipped]) };
};
let loadedKey;
const open = async () => {
  const snapshot = workerData.snapshotFile && !workerData.dataDir ? await readSnapshot() : undefined;
  if (snapshot) {
    try {
      const pg = await PGlite.create({ ...options, loadDataDir: snapshot.tarball });
      loadedKey = snapshot.key;
      return pg;
    } catch {
      // a damaged or foreign snapshot: start from an empty cluster, which the owner migrates
    }
  }
  return PGlite.create(options);
};
const saveSnapshot = async (pg, file, key) => {
  await pg.exec('checkpoint');
  const tarball = Buffer.from(await (await pg.dumpDataDir('gzip')).arrayBuffer());
  // written aside and renamed: a process starting meanwhile never reads half a snapshot
  const tmp = file + '.' + process.pid + '.' + Date.now() + '.tmp';
  fs.mkdirSync(require('node:path').dirname(tmp), { recursive: true });
  fs.writeFileSync(tmp, Buffer.concat([Buffer.from(SNAPSHOT_MAGIC + '\\n' + key + '\\n'), tarball]));
  fs.renameSync(tmp, file);
};
const ready = open();
ready.catch(() => undefined);
const describe = (error) => {
  const source = error && typeof error === 'object' ? error : { message: String(error) };
  const out = {};
  for (const field of FIELDS) if (source[field] !== undefined && typeof source[field] !== 'object') out[field] = source[field];
  return out;
};
const reply = (id, rows) => parentPort.postMessage({ id, ok: true, rows, affectedRows: 0 });
parentPort.on('message', async (msg) => {
  try {
    const pg = await ready;
    if (msg.op === 'close') {
      await pg.close();
      reply(msg.id, []);
      return;
    }
    if (msg.op === 'snapshot-key') {
      reply(msg.id, loadedKey === undefined ? [] : [{ key: loadedKey }]);
      return;
    }
    if (msg.op === 'save-snapshot') {
      await saveSnapshot(pg, msg.file, msg.key);
      reply(msg.id, []);
      return;
    }
    const result = msg.params.length === 0 ? (await pg.exec(msg.sql)).at(-1) : await pg.query(msg.sql, msg.params);
    parentPort.postMessage({ id: msg.id, ok: true, rows: result ? result.rows : [], affectedRows: (result && result.affectedRows) || 0 });
  } catch (error) {
    parentPort.postMessage({ id: msg.id, ok: false, error: describe(error) });
  }
});
`;

interface Reply {
  id: number;
  ok: boolean;
  rows?: unknown[];
  affectedRows?: number;
  error?: Record<string, unknown>;
}

const tagOf = (v: unknown) => Object.prototype.toString.call(v);

/** Rebuilds a cloned value with this realm's constructors (Date, Array, Object; bytes as Buffer). */
function localize(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Array.from(value as unknown[], localize);
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const tag = tagOf(value);
  if (tag === '[object Date]') return new Date((value as Date).getTime());
  if (tag !== '[object Object]') return value;
  const out: Record<string, unknown> = {};
  // json columns hold caller-chosen keys: an own "__proto__" must stay a key, not set a prototype
  for (const [k, v] of Object.entries(value)) setOwn(out, k, localize(v));
  return out;
}

function toError(described: Record<string, unknown> = {}): Error {
  const message = typeof described['message'] === 'string' ? described['message'] : 'PGlite error';
  if (typeof described['severity'] === 'string' && typeof described['code'] === 'string') {
    // shaped like node-postgres' DatabaseError, so callers handle both dialects alike
    const error = new Error(message);
    error.name = 'DatabaseError';
    for (const field of DATABASE_ERROR_FIELDS) {
      if (described[field] !== undefined) Object.assign(error, { [field]: described[field] });
    }
    return error;
  }
  if (described['name'] === 'RangeError') return new RangeError(message);
  if (described['name'] === 'TypeError') return new TypeError(message);
  return new Error(message);
}

export interface PgliteWorkerOptions {
  /** directory of the embedded database; in memory when absent */
  dataDir?: string;
  /**
   * In memory only: a data directory snapshot to start from when the file holds one (see
   * `saveSnapshot`); the database starts empty when it is missing or unreadable.
   */
  snapshotFile?: string;
}

/** One PGlite instance in a worker thread; requests are answered in order. */
export class PgliteWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (r: WorkerQueryResult) => void; reject: (e: Error) => void }
  >();
  #nextId = 1;
  #dead: Error | undefined;

  #closing: Promise<void> | undefined;

  constructor(opts: PgliteWorkerOptions) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pglitePath: require.resolve('@electric-sql/pglite'),
        pgTypesPath: require.resolve('pg-types', { paths: [path.dirname(require.resolve('pg'))] }),
        dataDir: opts.dataDir,
        snapshotFile: opts.snapshotFile,
      },
    });
    // idle, the worker must not keep the process alive; busy, it must
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => this.#settle(reply));
    this.#worker.on('error', (error) =>
      this.#fail(error instanceof Error ? error : new Error(String(error))),
    );
    this.#worker.on('exit', (code) => this.#fail(new Error(`PGlite worker exited (code ${code})`)));
  }

  query(sql: string, params: readonly unknown[]): Promise<WorkerQueryResult> {
    return this.#send({
      op: 'query',
      sql,
      params: params.map((p) => (Buffer.isBuffer(p) ? new Uint8Array(p) : p)),
    });
  }

  /** The key of the snapshot the database was started from, or undefined (started empty). */
  async snapshotKey(): Promise<string | undefined> {
    const { rows } = await this.#send({ op: 'snapshot-key' });
    const key = rows[0]?.['key'];
    return typeof key === 'string' ? key : undefined;
  }

  /** Writes the current data directory to `file` (a snapshot to start from), under `key`. */
  async saveSnapshot(file: string, key: string): Promise<void> {
    await this.#send({ op: 'save-snapshot', file, key });
  }

  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    if (this.#dead) return;
    try {
      await this.#send({ op: 'close' });
    } finally {
      await this.#worker.terminate();
    }
  }

  #send(message: Record<string, unknown>): Promise<WorkerQueryResult> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  #settle(reply: Reply): void {
    const waiter = this.#pending.get(reply.id);
    if (!waiter) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) {
      waiter.resolve({
        rows: (reply.rows ?? []).map((r) => localize(r) as Record<string, unknown>),
        affectedRows: reply.affectedRows ?? 0,
      });
    } else {
      waiter.reject(toError(reply.error));
    }
  }

  #fail(error: Error): void {
    this.#dead ??= error;
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
  }
}
