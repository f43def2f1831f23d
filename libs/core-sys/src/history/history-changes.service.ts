import { Injectable } from '@nestjs/common';
import { historyContracts as c, invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { EventLogReader, type ChangeRow } from '@coffer/event-store';

type ChangesQuery = RequestOf<typeof c.changes>['query'];
type Change = NonNullable<ResponseOf<typeof c.changes>['data']>['changes'][number];

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const RFC3339 = /^\d{4}-\d\d-\d\dT/;
const CURSOR_PART = /^([a-z_][a-z0-9_]{0,62}):([0-9]{1,15})$/;

interface LogPage {
  log: string;
  rows: ChangeRow[];
}

/**
 * GET sys/history/changes: who changed what, when (docs/history.md). Reads every service's log
 * (or one) through EventLogReader: each event's place, type and actor (accessor, entity, request
 * id and path, recorded beside the event by the event store), never its payload.
 *
 * The logs are merged by time. The cursor (`after` / `next`) is the last WAL index handed out of
 * each log ("core_sys:120,kv:43"): a page takes, from each log, events after its position, so
 * events appended meanwhile (always at higher WAL indexes) are neither skipped nor repeated.
 */
@Injectable()
export class HistoryChangesService {
  constructor(private readonly reader: EventLogReader) {}

  async changes(query: ChangesQuery): Promise<ResponseOf<typeof c.changes>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    if (limit < 1 || limit > MAX_LIMIT) throw invalidRequest(`limit must be between 1 and ${MAX_LIMIT}`);
    const since = parseTime(query.since, 'since');
    const until = parseTime(query.until, 'until');
    const all = await this.reader.schemas();
    if (query.log !== undefined && query.log !== '' && !all.includes(query.log)) {
      throw invalidRequest(`unknown log "${query.log}"`);
    }
    const logs = query.log !== undefined && query.log !== '' ? [query.log] : all;
    const cursor = parseCursor(query.after, logs);

    const pages: LogPage[] = [];
    for (const log of logs) {
      const head = (await this.reader.head(log)).lastWal;
      const first = since === undefined ? 1 : await this.firstAtOrAfter(log, head, since);
      const last = until === undefined ? head : await this.lastAtOrBefore(log, head, until);
      const from = Math.max(cursor.get(log) ?? 0, first - 1);
      if (from >= last) continue;
      // one more than the page: whether anything is left decides `next`
      const rows = await this.reader.changes(log, {
        afterWal: from,
        toWal: last,
        pathPrefix: query.path_prefix,
        limit: limit + 1,
      });
      pages.push({ log, rows });
    }

    const taken = mergeByTime(pages, limit);
    const left = pages.some((p) => p.rows.length > (taken.perLog.get(p.log) ?? 0));
    const next = new Map(cursor);
    for (const change of taken.changes) next.set(change.log, change.wal);
    return {
      data: {
        changes: taken.changes,
        next: left ? formatCursor(next) : null,
      },
    };
  }

  /** The first WAL index recorded at or after `time` (head + 1 when none), by binary search. */
  private async firstAtOrAfter(log: string, head: number, time: number): Promise<number> {
    let low = 1;
    let high = head + 1;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const recorded = await this.reader.recordedAt(log, mid);
      if (recorded && recorded.getTime() >= time) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /** The last WAL index recorded at or before `time` (0 when none). */
  private async lastAtOrBefore(log: string, head: number, time: number): Promise<number> {
    let low = 0;
    let high = head;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      const recorded = await this.reader.recordedAt(log, mid);
      if (recorded && recorded.getTime() <= time) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

function parseTime(value: string | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (!RFC3339.test(value) || Number.isNaN(ms)) throw invalidRequest(`${field} must be an RFC 3339 time`);
  return ms;
}

function parseCursor(after: string | undefined, logs: readonly string[]): Map<string, number> {
  const cursor = new Map<string, number>();
  if (after === undefined || after === '') return cursor;
  for (const part of after.split(',')) {
    const m = CURSOR_PART.exec(part);
    if (!m?.[1] || !m[2]) throw invalidRequest('after must be the next of a previous page');
    if (logs.includes(m[1])) cursor.set(m[1], Number(m[2]));
  }
  return cursor;
}

function formatCursor(cursor: Map<string, number>): string {
  return [...cursor.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([log, wal]) => `${log}:${wal}`)
    .join(',');
}

/**
 * A k-way merge of the logs' pages (each in WAL order) by time, then log name: it takes a prefix
 * of every log's page, so the cursor (the last WAL taken of each log) loses nothing.
 */
function mergeByTime(pages: LogPage[], limit: number): { changes: Change[]; perLog: Map<string, number> } {
  const perLog = new Map<string, number>(pages.map((p) => [p.log, 0]));
  const changes: Change[] = [];
  while (changes.length < limit) {
    let best: { page: LogPage; row: ChangeRow } | undefined;
    for (const page of pages) {
      const row = page.rows[perLog.get(page.log) ?? 0];
      if (!row) continue;
      if (!best || row.recordedAt.getTime() < best.row.recordedAt.getTime()) best = { page, row };
    }
    if (!best) break;
    perLog.set(best.page.log, (perLog.get(best.page.log) ?? 0) + 1);
    const { row } = best;
    changes.push({
      log: best.page.log,
      wal: row.wal,
      time: row.recordedAt.toISOString(),
      type: row.type,
      stream: row.stream,
      path: row.path,
      accessor: row.accessor,
      entity_id: row.entityId,
      request_id: row.requestId,
    });
  }
  return { changes, perLog };
}
