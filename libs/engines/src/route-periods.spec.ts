import type { MountEntry, Operation, RouteTable } from '@coffer/contracts';
import { MountIndex, resolveRoute } from '@coffer/gateway';
import { ENGINES } from './engines';

/**
 * The contract's rule "a path parameter must not end in a period" (404 unsupported path, nothing
 * reaches the engine), checked on every route of every engine of the list, for every operation
 * the route declares: a new engine is covered without writing a test for it.
 */
const OPTION_VARIANTS: Record<string, string>[] = [{}, { version: '1' }, { version: '2' }];

function tables(): RouteTable[] {
  const out = new Set<RouteTable>();
  for (const engine of ENGINES)
    for (const declared of Object.values(engine.mountTypes))
      for (const options of OPTION_VARIANTS) out.add(declared.routes(options));
  return [...out];
}

/** The route's pattern with every capture replaced by a value ending in ".". */
function periodPath(pattern: string): string | undefined {
  let captured = false;
  const parts = pattern.split('/').map((part) => {
    const m = /^:[a-zA-Z_][a-zA-Z0-9_]*(\*\??)?$/.exec(part);
    if (!m) return part;
    captured = true;
    return m[1] ? 'deep/name.' : 'name.';
  });
  return captured ? parts.join('/') : undefined;
}

const KIND: Record<Operation, 'read' | 'list' | 'write' | 'patch' | 'delete'> = {
  read: 'read',
  list: 'list',
  create: 'write',
  update: 'write',
  patch: 'patch',
  delete: 'delete',
};

const entry = (type: string): MountEntry => ({
  path: 'm/',
  uuid: 'u',
  accessor: 'a',
  type,
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
});

const cases = tables().flatMap((table) =>
  table.routes.flatMap((route) => {
    const rel = periodPath(route.pattern);
    if (rel === undefined) return [];
    const ops = Object.keys(route.operations) as Operation[];
    return ops.map((op) => ({ name: `${table.engine} ${op} ${route.pattern}`, table, rel, op }));
  }),
);

describe('path parameters ending in a period, on every route of every engine', () => {
  it('covers routes with captures', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases)('$name → 404 unsupported path', ({ table, rel, op }) => {
    const index = new MountIndex([entry(table.engine)]);
    const full = `m/${rel}`;
    const routing = resolveRoute(index, full, full, KIND[op], {
      tableFor: () => table,
      serviceFor: () => table.service,
    });
    expect(routing.kind).toBe('failed');
    if (routing.kind === 'failed') expect(routing.error.code).toBe('unsupported_path');
  });
});
