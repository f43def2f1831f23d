import { z } from 'zod';
import {
  DomainError,
  engineContract,
  formatRequestIssues,
  matchRoute,
  type EngineRequest,
  type EngineResponse,
  type Operation,
  type RouteTable,
} from '@coffer/contracts';
import type { PluginDefinition, PluginOperation, PluginStorage } from './plugin-definition';

const unsupportedPath = () => new DomainError('unsupported_path', 'unsupported path');
const unsupportedOperation = () => new DomainError('unsupported_operation', 'unsupported operation');

/** Routes EngineRequests to a plugin's handlers (the gateway sends every path of the mount). */
export class PluginRouter {
  readonly #table: RouteTable;
  readonly #ops = new Map<string, Partial<Record<Operation, PluginOperation>>>();

  constructor(private readonly definition: PluginDefinition) {
    // The contracts' pattern matcher needs a route table: the subjects are never used.
    const placeholder = engineContract(`plugin.${definition.name}.route`);
    this.#table = {
      engine: definition.name,
      service: definition.name,
      help: '',
      routes: definition.routes.map((r) => {
        this.#ops.set(r.pattern, r.operations);
        const operations = Object.fromEntries(
          Object.keys(r.operations).map((op) => [op, { contract: placeholder, summary: '' }]),
        );
        return { pattern: r.pattern, synopsis: r.synopsis, operations };
      }),
    };
  }

  async dispatch(request: EngineRequest, storage: PluginStorage): Promise<EngineResponse> {
    const candidates =
      request.operation === 'list'
        ? [request.path.endsWith('/') ? request.path.slice(0, -1) : request.path, request.path]
        : [request.path];
    let found = false;
    for (const path of candidates) {
      const match = matchRoute(this.#table, path);
      if (!match) continue;
      found = true;
      const ops = this.#ops.get(match.route.pattern) ?? {};
      const op =
        ops[request.operation] ??
        (request.operation === 'create' ? ops.update : undefined) ??
        (request.operation === 'update' ? ops.create : undefined);
      if (!op) continue;
      for (const value of Object.values(match.params))
        if (value.replace(/\/+$/, '').endsWith('.')) throw unsupportedPath();
      const parsed = (op.body ?? z.unknown()).safeParse(request.body);
      if (!parsed.success) throw new DomainError('invalid_request', formatRequestIssues(parsed.error));
      return op.handler({ request, params: match.params, body: parsed.data, storage });
    }
    throw found ? unsupportedOperation() : unsupportedPath();
  }
}
