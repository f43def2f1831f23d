import { z } from 'zod';
import { defineContract, type Contract } from './contract';
import { engineRequestSchema, engineResponseSchema, existenceResponseSchema, type Operation } from './engine';

/**
 * A route table describes an engine's HTTP surface once. The gateway uses it to match paths
 * (404 unsupported path / 405 unsupported operation), to run existence checks, to generate
 * `?help=1` markdown and OpenAPI, and to pick the transport subject; the engine service uses
 * the same contracts to register its handlers. Nothing about routes is written twice.
 *
 * Pattern syntax (relative to the mount): literal segments, ":name" (exactly one segment,
 * non-empty, must not end in "."), ":name*" (the rest of the path, may contain "/", may be empty
 * only if the pattern says ":name*?"). Examples: "config", "data/:path*", "roles/:name", ":path*?".
 */
export interface OperationDef {
  contract: Contract<typeof engineRequestSchema, typeof engineResponseSchema>;
  summary: string;
  /** zod schema of the JSON body (for validation at the gateway and for OpenAPI) */
  body?: z.ZodType;
  /** zod schema of the query parameters */
  query?: z.ZodType;
  /** zod schema of `data` in the response, for OpenAPI */
  responseData?: z.ZodType;
  /** PATCH requires Content-Type application/merge-patch+json (gateway enforces) */
  mergePatch?: boolean;
}

export interface RouteDef {
  pattern: string;
  synopsis: string;
  description?: string;
  operations: Partial<Record<Operation, OperationDef>>;
  /**
   * When set, POST/PUT is "create" or "update" depending on whether the target exists; the
   * gateway asks this contract only when the ACL grants one of the two but not both.
   */
  existenceCheck?: Contract<typeof engineRequestSchema, typeof existenceResponseSchema>;
  /** Needs no token (e.g. sys/init, sys/health, ssh/verify). */
  unauthenticated?: boolean;
  /** Served while sealed / uninitialised (sys/init, seal-status, unseal, health). */
  allowSealed?: boolean;
  /** Needs the sudo capability in addition to the operation's capability. */
  sudo?: boolean | Partial<Record<Operation, boolean>>;
  /** Lower-case request header names forwarded to the engine. */
  headers?: string[];
  /** Do not enforce the ACL on this route (e.g. token self-lookup uses the default policy rules). */
  noAcl?: boolean;
  /**
   * Gateway caches a successful write (not read/list) through this route makes stale: they are
   * dropped at once, belt and braces next to the invalidation broadcasts.
   */
  invalidates?: readonly GatewayCache[];
}

/** Caches the gateway keeps of core-sys state: the mount table, the seal state, resolved tokens. */
export type GatewayCache = 'mounts' | 'seal' | 'tokens';

export interface RouteTable {
  /** mount type this table serves, e.g. "kv-v2", "kv-v1", "cubbyhole", "system", "token", "userpass" */
  engine: string;
  /** name of the service that serves it (NATS queue group): "kv", "core-sys", ... */
  service: string;
  help: string;
  routes: RouteDef[];
}

export const engineContract = (subject: string) =>
  defineContract(subject, engineRequestSchema, engineResponseSchema);

export const existenceContract = (subject: string) =>
  defineContract(subject, engineRequestSchema, existenceResponseSchema);

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

interface CompiledPattern {
  route: RouteDef;
  regex: RegExp;
  names: string[];
  literalLength: number;
}

const compiled = new WeakMap<RouteTable, CompiledPattern[]>();

function compile(table: RouteTable): CompiledPattern[] {
  let list = compiled.get(table);
  if (list) return list;
  list = table.routes.map((route) => {
    const names: string[] = [];
    let literalLength = 0;
    const parts = route.pattern === '' ? [] : route.pattern.split('/');
    let source = '';
    parts.forEach((part, i) => {
      const sep = i === 0 ? '' : '/';
      const m = /^:([a-zA-Z_][a-zA-Z0-9_]*)(\*\??)?$/.exec(part);
      if (!m) {
        literalLength += part.length + sep.length;
        source += sep + part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
        return;
      }
      names.push(m[1] ?? '');
      if (m[2] === '*?') source += i === 0 ? '(.*)' : `(?:/(.*))?`;
      else if (m[2] === '*') source += `${sep}(.+)`;
      else source += `${sep}([^/]+)`;
    });
    return { route, regex: new RegExp(`^${source}$`, 's'), names, literalLength };
  });
  // Most specific first: longer literal prefixes win over captures ("config" before ":path*").
  list.sort((a, b) => b.literalLength - a.literalLength);
  compiled.set(table, list);
  return list;
}

/** Matches a mount-relative path against a route table. Returns undefined when no route matches. */
export function matchRoute(table: RouteTable, path: string): RouteMatch | undefined {
  for (const c of compile(table)) {
    const m = c.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => {
      params[n] = m[i + 1] ?? '';
    });
    return { route: c.route, params };
  }
  return undefined;
}

/** Every contract a table declares: the engine service registers a handler for each. */
export function tableContracts(table: RouteTable): Contract[] {
  const out: Contract[] = [];
  for (const r of table.routes) {
    for (const op of Object.values(r.operations)) if (op) out.push(op.contract);
    if (r.existenceCheck) out.push(r.existenceCheck);
  }
  return [...new Map(out.map((c) => [c.subject, c])).values()];
}
