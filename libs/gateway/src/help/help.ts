import type { Operation, OperationDef, RouteDef, RouteTable } from '@coffer/contracts';
import { z } from 'zod';

/**
 * `?help=1`: markdown help and a small OpenAPI 3 document generated from the route table and the
 * schemas of its contracts (the same ones that parse requests and filter responses), for the
 * route matching the queried path and every route below it. OpenAPI paths are relative to the
 * queried path ("/" is the queried path itself).
 */

export interface HelpDocument {
  help: string;
  openapi: OpenApiDocument;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; description: string; version: string };
  paths: Record<string, Record<string, unknown>>;
}

type JsonSchema = Record<string, unknown>;

interface RelatedRoute {
  route: RouteDef;
  /** OpenAPI path relative to the queried path */
  key: string;
  /** path parameters still open in `key` */
  pathParams: string[];
}

const PARAM_RE = /^:([a-zA-Z_][a-zA-Z0-9_]*)(\*\??)?$/;

/** How a route relates to the queried mount-relative path: matches it, lies below it, or neither. */
export function relateRoute(pattern: string, rel: string): { key: string; pathParams: string[] } | undefined {
  const patternSegs = pattern === '' ? [] : pattern.split('/');
  const relSegs = rel.split('/').filter((s) => s !== '');
  let i = 0;
  for (; i < relSegs.length; i++) {
    const seg = patternSegs[i];
    if (seg === undefined) return undefined;
    const param = PARAM_RE.exec(seg);
    if (param?.[2]) return { key: '/', pathParams: [] }; // a rest parameter takes everything left
    if (!param && seg !== relSegs[i]) return undefined;
  }
  const remaining = patternSegs.slice(i);
  if (remaining.length === 0 || (remaining.length === 1 && PARAM_RE.exec(remaining[0] ?? '')?.[2] === '*?')) {
    return { key: '/', pathParams: [] };
  }
  const pathParams: string[] = [];
  const parts = remaining.map((seg) => {
    const param = PARAM_RE.exec(seg);
    if (!param) return seg;
    pathParams.push(param[1] ?? '');
    return `{${param[1] ?? ''}}`;
  });
  return { key: `/${parts.join('/')}`, pathParams };
}

export function relatedRoutes(table: RouteTable, rel: string): RelatedRoute[] {
  const out: RelatedRoute[] = [];
  for (const route of table.routes) {
    const related = relateRoute(route.pattern, rel);
    if (related) out.push({ route, ...related });
  }
  return out.sort((a, b) => (a.key === b.key ? 0 : a.key < b.key ? -1 : 1));
}

/** Undefined when no route matches or lies below the path (the caller answers 404). */
export function buildHelp(table: RouteTable, rel: string, requestPath: string): HelpDocument | undefined {
  const routes = relatedRoutes(table, rel);
  if (routes.length === 0) return undefined;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    // several patterns can relate to one key (a specific route and a catch-all): first one wins
    paths[r.key] ??= pathItem(r);
  }
  return {
    help: markdown(table, requestPath, routes),
    openapi: {
      openapi: '3.0.3',
      info: { title: `Coffer API: ${requestPath}`, description: table.help, version: '1' },
      paths,
    },
  };
}

function markdown(table: RouteTable, requestPath: string, routes: RelatedRoute[]): string {
  const lines = [`# ${requestPath}`, ''];
  if (table.help) lines.push(table.help, '');
  for (const { route, key } of routes) {
    lines.push(`## ${key}`, '', route.synopsis, '');
    if (route.description) lines.push(route.description, '');
    const notes = [
      route.unauthenticated ? 'needs no token' : undefined,
      route.sudo === true ? 'needs sudo' : undefined,
      route.allowSealed ? 'served while sealed' : undefined,
    ].filter((n): n is string => n !== undefined);
    if (notes.length) lines.push(`_${notes.join('; ')}_`, '');
    lines.push('| Operation | Method | Summary |', '| --- | --- | --- |');
    for (const [operation, def] of operationEntries(route)) {
      lines.push(`| ${operation} | ${HTTP_METHOD[operation]} | ${def.summary.replace(/\|/g, '\\|')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

const HTTP_METHOD: Record<Operation, string> = {
  read: 'GET',
  list: 'LIST',
  create: 'POST/PUT',
  update: 'POST/PUT',
  patch: 'PATCH',
  delete: 'DELETE',
};

function operationEntries(route: RouteDef): Array<[Operation, OperationDef]> {
  return (Object.entries(route.operations) as Array<[Operation, OperationDef | undefined]>).filter(
    (e): e is [Operation, OperationDef] => e[1] !== undefined,
  );
}

function pathItem({ route, pathParams }: RelatedRoute): Record<string, unknown> {
  const item: Record<string, unknown> = { summary: route.synopsis };
  if (route.description) item['description'] = route.description;
  if (pathParams.length) {
    item['parameters'] = pathParams.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
  }
  const ops = route.operations;
  const extensions = {
    ...(route.unauthenticated ? { 'x-coffer-unauthenticated': true } : {}),
    ...(route.sudo === true ? { 'x-coffer-sudo': true } : {}),
  };
  if (ops.read || ops.list) item['get'] = { ...getOperation(ops.read, ops.list), ...extensions };
  const write = ops.update ?? ops.create;
  if (write) item['post'] = { ...writeOperation(write, 'application/json'), ...extensions };
  if (ops.patch)
    item['patch'] = { ...writeOperation(ops.patch, 'application/merge-patch+json'), ...extensions };
  if (ops.delete) item['delete'] = { ...readLike(ops.delete, []), ...extensions };
  return item;
}

/** LIST is GET with `list=true`, as Vault documents it. */
function getOperation(
  read: OperationDef | undefined,
  list: OperationDef | undefined,
): Record<string, unknown> {
  const listParam = (required: boolean) => ({
    name: 'list',
    in: 'query',
    required,
    description: list ? `true: ${list.summary}` : undefined,
    schema: { type: 'string', enum: ['true'] },
  });
  if (read && list) {
    const op = readLike(read, [listParam(false)]);
    op['description'] = `With list=true: ${list.summary}`;
    return op;
  }
  return readLike((read ?? list) as OperationDef, list ? [listParam(true)] : []);
}

function readLike(def: OperationDef, extra: unknown[]): Record<string, unknown> {
  const parameters = [...queryParameters(def.contract.schemas.query), ...extra];
  return {
    summary: def.summary,
    ...(parameters.length ? { parameters } : {}),
    responses: responses(def),
  };
}

function writeOperation(def: OperationDef, contentType: string): Record<string, unknown> {
  const op: Record<string, unknown> = { summary: def.summary };
  const { body, query } = def.contract.schemas;
  const parameters = queryParameters(query);
  if (parameters.length) op['parameters'] = parameters;
  if (body) op['requestBody'] = { content: { [contentType]: { schema: schemaOf(body, 'input') } } };
  op['responses'] = responses(def);
  return op;
}

function responses(def: OperationDef): Record<string, unknown> {
  const { raw } = def.contract.schemas;
  // A raw answer is its body alone, no envelope (sys/health sends it with other codes too).
  if (raw) {
    return {
      '200': { description: 'OK', content: { 'application/json': { schema: schemaOf(raw, 'output') } } },
    };
  }
  const declared = def.contract.schemas.data;
  const data = declared ? schemaOf(declared, 'output') : { type: 'object', nullable: true };
  return {
    '200': {
      description: 'OK',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              request_id: { type: 'string' },
              lease_id: { type: 'string' },
              renewable: { type: 'boolean' },
              lease_duration: { type: 'integer' },
              data,
              warnings: { type: 'array', items: { type: 'string' }, nullable: true },
            },
          },
        },
      },
    },
    '204': { description: 'No content' },
  };
}

function queryParameters(schema: z.ZodType | undefined): unknown[] {
  if (!schema) return [];
  const json = schemaOf(schema, 'input');
  const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof s['description'] === 'string' ? { description: s['description'] } : {}),
    schema: s,
  }));
}

const schemaCache = new WeakMap<z.ZodType, Partial<Record<'input' | 'output', JsonSchema>>>();

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const cached = schemaCache.get(schema) ?? {};
  const hit = cached[io];
  if (hit) return hit;
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' });
  } catch {
    json = {};
  }
  delete json['$schema'];
  cached[io] = json;
  schemaCache.set(schema, cached);
  return json;
}
