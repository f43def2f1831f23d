import { invalidRequest, type Operation } from '@coffer/contracts';
import type { EngineResult } from './envelope';

/**
 * Paginated LIST, for every LIST the gateway serves (kv metadata, policies, roles, token
 * accessors, entities, ...): `?after=<key>&limit=<n>` answers the keys sorting after `after`, at
 * most `limit` of them, and `next` (the last key of the page, to pass as the next `after`; null on
 * the last page). Keyset pagination: a key written or deleted between two pages never shifts the
 * others, so concurrent writes neither skip nor repeat a key that stays. Without either parameter
 * the answer is Vault's full list, untouched.
 *
 * Pages are cut here, in one place, from the engine's full answer: every engine gets it at once
 * (an engine may later cut its own pages in SQL; the answer stays the same).
 */
export interface ListPage {
  keys: string[];
  next: string | null;
}

const LIMIT = /^[1-9][0-9]{0,8}$/;

/** The page of `keys` after `after` (exclusive), in byte order, at most `limit` long. */
export function pageOfKeys(
  keys: readonly string[],
  after: string | undefined,
  limit: number | undefined,
): ListPage {
  const sorted = [...keys].sort(compareKeys);
  const start = after === undefined ? 0 : sorted.findIndex((k) => compareKeys(k, after) > 0);
  const rest = start < 0 ? [] : sorted.slice(start);
  const page = limit === undefined ? rest : rest.slice(0, limit);
  const more = limit !== undefined && rest.length > limit;
  return { keys: page, next: more ? (page[page.length - 1] ?? null) : null };
}

/** UTF-8 byte order (Vault's storage order), not UTF-16 code units. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The engine's LIST answer cut to the requested page; any other answer unchanged. */
export function pageListResult(
  res: EngineResult,
  operation: Operation,
  query: Readonly<Record<string, string>>,
): EngineResult {
  const after = query['after'];
  const limitText = query['limit'];
  if (operation !== 'list' || (after === undefined && limitText === undefined)) return res;
  if (limitText !== undefined && !LIMIT.test(limitText)) {
    throw invalidRequest('limit must be a positive integer');
  }
  const data = res.data;
  const keys = data?.['keys'];
  if (res.kind === 'raw' || !data || !Array.isArray(keys)) return res;
  const page = pageOfKeys(
    keys.map((k) => String(k)),
    after === '' ? undefined : after,
    limitText === undefined ? undefined : Number(limitText),
  );
  const paged: Record<string, unknown> = { ...data, keys: page.keys, next: page.next };
  // key_info (identity, ssh roles, ...) describes the keys: only the page's
  const info = data['key_info'];
  if (info && typeof info === 'object' && !Array.isArray(info)) {
    const entries = info as Record<string, unknown>;
    paged['key_info'] = Object.fromEntries(
      page.keys.filter((k) => Object.hasOwn(entries, k)).map((k) => [k, entries[k]]),
    );
  }
  return { ...res, data: paged };
}
