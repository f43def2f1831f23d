import { CliUsageError } from './cli-errors';

/**
 * Vault's CLI spells long flags with one dash (`-format=json`, `-mount=secret`); commander wants
 * two. Every multi-letter single-dash flag before a `--` is rewritten to the double-dash form,
 * so both spellings work. Single letters (`-h`), a lone `-` (stdin) and everything after `--`
 * are left alone.
 */
export function normalizeArgv(args: readonly string[]): string[] {
  const out: string[] = [];
  let passthrough = false;
  for (const arg of args) {
    if (passthrough) out.push(arg);
    else if (arg === '--') {
      passthrough = true;
      out.push(arg);
    } else if (/^-[A-Za-z][A-Za-z0-9_-]+(=[\s\S]*)?$/.test(arg)) out.push(`-${arg}`);
    else out.push(arg);
  }
  return out;
}

/** Go's strconv.ParseBool, which Vault's boolean flags accept (`-renewable=false`). */
export function parseBool(value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new CliUsageError(`invalid boolean value "${value}"`);
}

export interface KeyValueSources {
  readFile(path: string): string;
  readStdin(): string;
}

/**
 * `key=value` arguments as Vault reads them: `key=@file` takes the file's contents, `key=-`
 * reads standard input, a lone `-` reads a JSON object from standard input, and a key given
 * twice becomes a list.
 */
export function parseKeyValues(args: readonly string[], sources: KeyValueSources): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  let stdinUsed = false;
  const stdin = (): string => {
    if (stdinUsed) throw new CliUsageError('standard input can only be read once');
    stdinUsed = true;
    return sources.readStdin();
  };
  const set = (key: string, value: unknown) => {
    if (!Object.hasOwn(data, key)) data[key] = value;
    else {
      const prev = data[key];
      data[key] = Array.isArray(prev) ? [...(prev as unknown[]), value] : [prev, value];
    }
  };
  for (const arg of args) {
    if (arg === '-') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdin());
      } catch (e) {
        throw new CliUsageError(`failed to parse JSON input: ${(e as Error).message}`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new CliUsageError('JSON input must be an object');
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) data[k] = v;
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`invalid key/value pair "${arg}": format must be key=value`);
    const key = arg.slice(0, eq);
    const raw = arg.slice(eq + 1);
    if (raw === '-') set(key, stdin());
    else if (raw.startsWith('@')) {
      try {
        set(key, sources.readFile(raw.slice(1)));
      } catch (e) {
        throw new CliUsageError(`error reading file ${raw.slice(1)}: ${(e as Error).message}`);
      }
    } else set(key, raw);
  }
  return data;
}

/** Vault's API paths: no leading slash, no doubled slashes; trailing slash kept for lists. */
export function sanitizePath(path: string): string {
  return path.replace(/^\/+/, '').replace(/\/{2,}/g, '/');
}

/** Collects a repeatable option (`-policy=a -policy=b`), splitting comma lists as Vault does. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  ];
}
