import Table from 'cli-table3';
import YAML from 'yaml';

/**
 * Pure formatting of API bodies the way Vault's CLI prints them: aligned columns glued with
 * four spaces, Go's `%v` spelling of lists and maps, `n/a` for null, durations as Go prints them.
 */
export type OutputFormat = 'table' | 'json' | 'yaml';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %v of a decoded JSON value. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'n/a';
  if (Array.isArray(value)) return `[${value.map(formatValue).join(' ')}]`;
  if (isObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${formatValue(value[k])}`)
      .join(' ')}]`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Go's time.Duration.String() for whole seconds: 0s, 45s, 1m30s, 768h. */
export function formatDuration(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds <= 0) return '0s';
  const s = Math.floor(totalSeconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  let out = '';
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  out += `${sec}s`;
  // Vault humanizes whole hours as "768h" rather than "768h0m0s"
  return out.replace(/^(\d+h)0m0s$/, '$1').replace(/^(\d+m)0s$/, '$1');
}

/** Columns glued with four spaces (Vault's columnize), no borders. */
export function columns(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const table = new Table({
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '    ',
    },
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
  });
  for (const row of rows) table.push([...row]);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** A headed table: the header, a dashed rule as long as each heading, the rows. */
export function headedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return columns([header, header.map((h) => '-'.repeat(h.length)), ...rows]);
}

export function keyValueTable(rows: readonly (readonly [string, unknown])[]): string {
  return headedTable(
    ['Key', 'Value'],
    rows.map(([k, v]) => [k, typeof v === 'string' ? v : formatValue(v)]),
  );
}

/** Vault's warnings block, printed above a table. */
export function formatWarnings(warnings: readonly string[]): string {
  if (warnings.length === 0) return '';
  return `WARNING! The following warnings were returned from Vault:\n\n${warnings
    .map((w) => `  * ${w}`)
    .join('\n\n')}\n\n`;
}

/** A `== Title ==` heading as wide as the block it heads (Vault's kv get sections). */
export function sectionHeading(title: string, width: number): string {
  const pad = Math.max(2, Math.floor((width - title.length - 2) / 2));
  return `${'='.repeat(pad)} ${title} ${'='.repeat(pad)}`;
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** The rows of Vault's secret table: lease, auth, wrap info, then the data keys sorted. */
export function secretRows(body: JsonObject, data: unknown = body.data): [string, unknown][] {
  const rows: [string, unknown][] = [];
  const leaseDuration = typeof body.lease_duration === 'number' ? body.lease_duration : 0;
  if (leaseDuration > 0) {
    if (typeof body.lease_id === 'string' && body.lease_id !== '') {
      rows.push(['lease_id', body.lease_id]);
      rows.push(['lease_duration', formatDuration(leaseDuration)]);
      rows.push(['lease_renewable', body.renewable ?? false]);
    } else rows.push(['refresh_interval', formatDuration(leaseDuration)]);
  }
  const auth = body.auth;
  if (isObject(auth)) {
    const duration = typeof auth.lease_duration === 'number' ? auth.lease_duration : 0;
    rows.push(['token', auth.client_token ?? '']);
    rows.push(['token_accessor', auth.accessor ?? '']);
    rows.push(['token_duration', duration === 0 ? '∞' : formatDuration(duration)]);
    rows.push(['token_renewable', auth.renewable ?? false]);
    rows.push(['token_policies', stringList(auth.token_policies ?? auth.policies)]);
    rows.push(['identity_policies', stringList(auth.identity_policies)]);
    rows.push(['policies', stringList(auth.policies)]);
    const meta = auth.metadata;
    if (isObject(meta)) for (const k of Object.keys(meta).sort()) rows.push([`token_meta_${k}`, meta[k]]);
  }
  const wrap = body.wrap_info;
  if (isObject(wrap)) {
    rows.push(['wrapping_token:', wrap.token ?? '']);
    rows.push(['wrapping_accessor:', wrap.accessor ?? '']);
    rows.push(['wrapping_token_ttl:', formatDuration(Number(wrap.ttl ?? 0))]);
    rows.push(['wrapping_token_creation_time:', wrap.creation_time ?? '']);
    rows.push(['wrapping_token_creation_path:', wrap.creation_path ?? '']);
    if (typeof wrap.wrapped_accessor === 'string' && wrap.wrapped_accessor !== '')
      rows.push(['wrapped_accessor:', wrap.wrapped_accessor]);
  }
  if (isObject(data)) for (const k of Object.keys(data).sort()) rows.push([k, data[k]]);
  return rows;
}

/** The value `-field=name` selects: a data key first, then the table's own rows (token, ...). */
export function selectField(body: JsonObject, field: string, data: unknown = body.data): unknown {
  if (isObject(data) && Object.hasOwn(data, field)) return data[field];
  const row = secretRows(body, {}).find(([k]) => k === field || k === `${field}:`);
  if (row !== undefined) return row[1];
  // top-level envelope fields (lease_id, renewable, ...) and non-envelope bodies (sys/init)
  return Object.hasOwn(body, field) ? body[field] : undefined;
}

/** A field's raw value for scripts: strings bare, everything else as JSON. */
export function rawField(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function formatStructured(value: unknown, format: 'json' | 'yaml'): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  return YAML.stringify(value);
}

/** Vault's list view. */
export function listTable(keys: readonly string[], header = 'Keys'): string {
  return headedTable(
    [header],
    keys.map((k) => [k]),
  );
}
