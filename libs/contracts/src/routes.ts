import type { z } from 'zod';
import { defineContract, type Contract } from './contract';
import {
  engineRequestSchema,
  engineResponseSchema,
  existenceResponseSchema,
  type EngineRequest,
  type EngineResponse,
  type Operation,
} from './engine-messages';

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
  /** the engine contract: its schemas parse the request, filter the response and make the OpenAPI */
  contract: AnyEngineContract;
  summary: string;
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
   * Vault Enterprise's "restricted" routes (plugin catalog, replication, rekey, seal,
   * generate-root, RGP/EGP): served only in the root or the administrative namespace.
   */
  restricted?: boolean;
  /**
   * Gateway caches a successful write (not read/list) through this route makes stale: they are
   * dropped at once, belt and braces next to the invalidation broadcasts.
   */
  invalidates?: readonly GatewayCache[];
  /**
   * POST/PUT bodies may also be `application/x-www-form-urlencoded` (OAuth's token endpoint);
   * the gateway hands them to the engine as string fields, like a JSON body.
   */
  formBody?: boolean;
  /**
   * The service serving this route when it is not the table's: set on the routes another engine
   * adds to a mount type it does not own (EngineDescriptor.routeExtensions).
   */
  service?: string;
  /**
   * Writes (not reads or lists) through this route change storage a performance secondary
   * replicates, so a performance secondary runs them on its primary (Vault's request forwarding),
   * unless the route's own mount is local to it (a `local: true` auth method's users stay there).
   * `'mount'`: the route also addresses a mount by path (sys/mounts/:path, sys/auth/:path, their
   * tune, sys/remount's `from`); a write to a local mount, or enabling one (`local: true`), stays
   * local (see `addressedMountPath`).
   */
  replicated?: boolean | 'mount';
}

/**
 * The mount a `replicated: 'mount'` route addresses, as the mount table keys it (relative to the
 * request's namespace, ending in "/": "foo/", "auth/userpass/"); undefined when none is named.
 */
export function addressedMountPath(
  route: Pick<RouteDef, 'pattern'>,
  params: Readonly<Record<string, unknown>>,
  body: unknown,
): string | undefined {
  const fromBody = (body as { from?: unknown } | null | undefined)?.from;
  const raw = route.pattern === 'remount' ? fromBody : params.path;
  if (typeof raw !== 'string' || raw.replace(/^\/+|\/+$/g, '') === '') return undefined;
  const path = `${raw.replace(/^\/+|\/+$/g, '')}/`;
  return route.pattern.startsWith('auth/') ? `auth/${path}` : path;
}

/** Whether a write addressed to a mount enables it as a local one (`local: true` in the body). */
export function enablesLocalMount(body: unknown): boolean {
  const local = (body as { local?: unknown } | null | undefined)?.local;
  return local === true || local === 'true';
}

/**
 * The write subjects of the tables' `replicated` routes, with their route and the service serving
 * it: what a performance primary runs for a secondary that forwarded it.
 */
export function replicatedWriteRoutes(
  tables: readonly RouteTable[],
): Map<string, RouteDef & { service: string }> {
  const out = new Map<string, RouteDef & { service: string }>();
  for (const table of tables)
    for (const route of table.routes) {
      if (!route.replicated) continue;
      const served = { ...route, service: route.service ?? table.service };
      for (const [operation, def] of Object.entries(route.operations))
        if (def && operation !== 'read' && operation !== 'list') out.set(def.contract.subject, served);
    }
  return out;
}

/** Caches the gateway keeps of core-sys state: the mount table, the seal state, resolved tokens. */
export type GatewayCache = 'mounts' | 'seal' | 'tokens' | 'audit';

export interface RouteTable {
  /** mount type this table serves, e.g. "kv-v2", "kv-v1", "cubbyhole", "system", "token", "userpass" */
  engine: string;
  /** name of the service that serves it (NATS queue group): "kv", "core-sys", ... */
  service: string;
  help: string;
  routes: RouteDef[];
}

/**
 * The parts of an engine contract that are the engine's own. Each replaces the generic part of
 * the EngineRequest / EngineResponse schema; what is not declared stays generic (a JSON object
 * body, string query and params, a JSON object as `data`).
 */
export interface EngineSchemas {
  /** the JSON body; usually a z.object of weak fields (fields/weak-fields.ts) */
  body?: z.ZodType;
  /** the query string (values arrive as strings) */
  query?: z.ZodType;
  /** the route pattern's captures */
  params?: z.ZodType;
  /** `data` of the response: an allow-list, undeclared fields never leave the engine */
  data?: z.ZodType;
  /** `body` of a kind "raw" response (sys/init, seal-status, health): an allow-list like `data` */
  raw?: z.ZodType;
}

type Part<S extends EngineSchemas, K extends keyof EngineSchemas, Generic> = S[K] extends z.ZodType
  ? S[K]
  : Generic;
type GenericRequestShape = typeof engineRequestSchema.shape;

export type EngineRequestSchemaOf<S extends EngineSchemas> = z.ZodObject<
  Omit<GenericRequestShape, 'body' | 'query' | 'params'> & {
    body: Part<S, 'body', GenericRequestShape['body']>;
    query: Part<S, 'query', GenericRequestShape['query']>;
    params: Part<S, 'params', GenericRequestShape['params']>;
  },
  z.core.$strip
>;
type GenericResponseShape = typeof engineResponseSchema.shape;

export type EngineResponseSchemaOf<S extends EngineSchemas> = z.ZodObject<
  Omit<GenericResponseShape, 'data' | 'body'> & {
    data: S['data'] extends z.ZodType ? z.ZodDefault<z.ZodNullable<S['data']>> : GenericResponseShape['data'];
    body: S['raw'] extends z.ZodType ? z.ZodOptional<S['raw']> : GenericResponseShape['body'];
  },
  z.core.$strip
>;

export interface EngineContract<S extends EngineSchemas = EngineSchemas> extends Contract<
  EngineRequestSchemaOf<S>,
  EngineResponseSchemaOf<S>
> {
  /** what the contract declared, for OpenAPI */
  readonly schemas: S;
}

/**
 * What the gateway needs of any engine contract: it sends an EngineRequest (raw body, string
 * query; the contract's schema decides what it accepts) and receives an EngineResponse. Every
 * EngineContract is one.
 */
export interface AnyEngineContract extends Contract<z.ZodType, z.ZodType<EngineResponseWire, unknown>> {
  readonly schemas: EngineSchemas;
}
type EngineResponseWire = Omit<z.output<typeof engineResponseSchema>, 'data'> & {
  data: Record<string, unknown> | null;
};

/**
 * An engine operation's contract. Its request schema is the only parser of what the caller sent
 * (the transport runs it before the handler; a failure answers Vault's text, fields/request-errors);
 * its response schema filters what the handler returns (`data`, or `raw` for a body sent without
 * the envelope).
 *
 *   export const kvV2 = { configWrite: engineContract('kv.v2.config.write', { body: kvV2ConfigBody }) };
 *   @Handles(kvV2.configWrite) write(@Payload() req: RequestOf<typeof kvV2.configWrite>) { ... }
 */
export function engineContract<const S extends EngineSchemas = Record<never, never>>(
  subject: string,
  schemas: S = {} as S,
): EngineContract<S> {
  const request = engineRequestSchema.extend({
    ...(schemas.body ? { body: schemas.body } : {}),
    ...(schemas.query ? { query: schemas.query } : {}),
    ...(schemas.params ? { params: schemas.params } : {}),
  });
  const response = engineResponseSchema.extend({
    ...(schemas.data ? { data: schemas.data.nullable().default(null) } : {}),
    ...(schemas.raw ? { body: schemas.raw.optional() } : {}),
  });
  return {
    ...defineContract(subject, request, response),
    schemas,
  } as unknown as EngineContract<S>;
}

/** What a handler of the contract receives: the parsed, typed request. */
export type RequestOf<C extends Contract> = z.output<C['request']>;
/** What a handler of the contract returns (before the response schema applies its defaults). */
export type ResponseOf<C extends Contract> = z.input<C['response']>;

/** The parsed request of a contract that declares nothing of its own. */
export type GenericEngineRequest = EngineRequest;
export type GenericEngineResponse = EngineResponse;

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
