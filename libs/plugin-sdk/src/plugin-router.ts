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
import { PLUGIN_HISTORY_HEADER } from '@coffer/contracts/plugins';
import type { PluginDefinition, PluginOperation, PluginStorage } from './plugin-definition';

const unsupportedPath = () => new DomainError('unsupported_path', 'unsupported path');
const unsupportedOperation = () => new DomainError('unsupported_operation', 'unsupported operation');
const noHistory = (path: string) =>
  new DomainError('invalid_request', `no history of "${path}" in this plugin`);

/** Routes EngineRequests to a plugin's handlers (the gateway sends every path of the mount). */
export class PluginRouter {
  readonly #table: RouteTable;
  readonly #ops = new Map<string, Partial<Record<Operation, PluginOperation>>>();
  /** the patterns whose reads and LISTs may be asked at a past instant */
  readonly #history = new Set<string>();

  constructor(private readonly definition: PluginDefinition) {
    // The contracts' pattern matcher needs a route table: the subjects are never used.
    const placeholder = engineContract(`plugin.${definition.name}.route`);
    this.#table = {
      engine: definition.name,
      service: definition.name,
      help: '',
      routes: definition.routes.map((r) => {
        this.#ops.set(r.pattern, r.operations);
        if (r.history === true) this.#history.add(r.pattern);
        const operations = Object.fromEntries(
          Object.keys(r.operations).map((op) => [op, { contract: placeholder, summary: '' }]),
        );
        return { pattern: r.pattern, synopsis: r.synopsis, operations };
      }),
    };
  }

  async dispatch(request: EngineRequest, storage: PluginStorage): Promise<EngineResponse> {
    // sys/history/state asking at a past instant: only the reads and LISTs declared `history`
    const past = request.headers[PLUGIN_HISTORY_HEADER] !== undefined;
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
      if (
        past &&
        !(
          this.#history.has(match.route.pattern) &&
          (request.operation === 'read' || request.operation === 'list')
        )
      )
        throw noHistory(request.path);
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
