import {
  coreAuditConfig,
  coreEntityFacts,
  coreMountTable,
  coreNamespaceLocks,
  corePolicyTexts,
  coreSealState,
  coreSentinelPolicies,
  coreTokenResolve,
  coreWrapResponse,
  DomainError,
  engineContract,
  existenceContract,
  invalidation,
  kvV1Routes,
  kvV2Routes,
  PLANNED_MOUNT_TYPES,
  systemRoutes,
  type AuditDeviceConfig,
  type AuditedHeader,
  type EngineRequest,
  type EngineResponse,
  type EntityFacts,
  type Invalidation,
  type MountEntry,
  type MountInfo,
  type ResolvedToken,
  type RouteTable,
} from '@coffer/contracts';
import { InProcessTransport, type TransportLogger } from '@coffer/transport';
import { z } from 'zod';
import { createGateway, type Gateway, type GatewayOptions } from '../src';

/**
 * Integration-test harness: the real gateway on free ports, the real in-process transport, and
 * core-sys's internal contracts served by a small in-memory stand-in (seal state, mount table,
 * tokens, policy texts, entity facts) plus a test engine with its own route table.
 */

export const ROOT_TOKEN = 'root-token';

export const mountEntry = (path: string, type: string, options: Record<string, string> = {}): MountEntry => ({
  path,
  uuid: `uuid-${path}`,
  accessor: `${type}_${path.replace(/\W/g, '')}`,
  type,
  namespace: '',
  options,
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
});

export const token = (over: Partial<ResolvedToken> & { accessor: string }): ResolvedToken => ({
  tokenRef: `ref-${over.accessor}`,
  policies: ['default'],
  identityPolicies: [],
  entityId: '',
  displayName: 'token',
  expiresAt: 0,
  cacheable: true,
  ...over,
});

export class FakeCoreSys {
  sealed = false;
  initialized = true;
  mounts: MountEntry[] = [];
  readonly tokens = new Map<string, ResolvedToken>();
  readonly policies = new Map<string, string>();
  readonly entities = new Map<string, EntityFacts>();
  auditDevices: AuditDeviceConfig[] = [];
  auditHeaders: AuditedHeader[] = [];
  readonly calls = { seal: 0, mounts: 0, resolve: 0, policyTexts: 0, entity: 0 };
  /** responses wrapped through coreWrapResponse, by wrapping token */
  readonly wrapped = new Map<string, { response: Record<string, unknown>; ttl: number; path: string }>();

  constructor(private readonly transport: InProcessTransport) {
    transport.serve(coreSealState, 'core-sys', async () => {
      this.calls.seal++;
      return { initialized: this.initialized, sealed: this.sealed };
    });
    transport.serve(coreMountTable, 'core-sys', async () => {
      this.calls.mounts++;
      if (this.sealed) throw new DomainError('sealed', 'Vault is sealed');
      return { mounts: this.mounts, revision: 1 };
    });
    transport.serve(coreTokenResolve, 'core-sys', async ({ token }) => {
      this.calls.resolve++;
      const found = this.tokens.get(token);
      if (!found) throw new DomainError('invalid_token', 'invalid token');
      return found;
    });
    transport.serve(corePolicyTexts, 'core-sys', async ({ names }) => {
      this.calls.policyTexts++;
      return {
        policies: names.flatMap((name) => {
          const text = this.policies.get(name);
          return text === undefined ? [] : [{ name, text }];
        }),
      };
    });
    transport.serve(coreEntityFacts, 'core-sys', async ({ entityId }) => {
      this.calls.entity++;
      return this.entities.get(entityId) ?? null;
    });
    // no namespace is API-locked
    transport.serve(coreNamespaceLocks, 'core-sys', async () => ({ locked: [] }));
    // no RGPs or EGPs: the Sentinel step passes every request
    transport.serve(coreSentinelPolicies, 'core-sys', async () => ({ policies: [] }));
    transport.serve(coreAuditConfig, 'core-sys', async () => ({
      devices: this.auditDevices,
      headers: this.auditHeaders,
    }));
    transport.serve(coreWrapResponse, 'core-sys', async (req) => {
      const n = this.wrapped.size + 1;
      this.wrapped.set(`wrapping-token-${n}`, {
        response: req.response,
        ttl: req.ttl,
        path: req.creationPath,
      });
      return {
        token: `wrapping-token-${n}`,
        accessor: `wrapping-accessor-${n}`,
        ttl: req.ttl,
        creation_time: '2026-01-01T00:00:00.000000000Z',
        creation_path: req.creationPath,
        ...(req.wrappedAccessor ? { wrapped_accessor: req.wrappedAccessor } : {}),
      };
    });
    this.tokens.set(ROOT_TOKEN, token({ accessor: 'root-accessor', policies: ['root'] }));
  }

  /** Like core-sys: publish the invalidation after the change, before answering the writer. */
  async invalidate(kind: Invalidation['kind'], keys: string[] = []): Promise<void> {
    await this.transport.publish(invalidation, { kind, keys });
  }
}

/** Contracts of the test engine ("testeng" mounts, service "testeng"). */
export const testEng = {
  echo: engineContract('testeng.echo'),
  echoRead: engineContract('testeng.echo.read', {
    query: z.object({ q: z.string().optional() }).catchall(z.string()),
  }),
  itemsCreate: engineContract('testeng.items.create'),
  itemsUpdate: engineContract('testeng.items.update'),
  itemsRead: engineContract('testeng.items.read'),
  itemsExist: existenceContract('testeng.items.exists'),
  list: engineContract('testeng.list', { data: z.object({ keys: z.array(z.string()) }) }),
  special: engineContract('testeng.special'),
  validated: engineContract('testeng.validated', {
    body: z.object({ count: z.number().int().describe('How many.') }),
  }),
  slow: engineContract('testeng.slow'),
};

export const testEngineRoutes: RouteTable = {
  engine: 'testeng',
  service: 'testeng',
  help: 'A test engine.',
  routes: [
    {
      pattern: 'echo/:name',
      synopsis: 'Echoes the request.',
      description: 'Answers with what the gateway sent.',
      headers: ['x-custom'],
      operations: {
        read: { contract: testEng.echoRead, summary: 'Echo a read.' },
        update: { contract: testEng.echo, summary: 'Echo a write.' },
        delete: { contract: testEng.echo, summary: 'Echo a delete.' },
        patch: { contract: testEng.echo, summary: 'Echo a patch.', mergePatch: true },
      },
    },
    {
      pattern: 'items/:name',
      synopsis: 'Items with separate create and update handlers.',
      existenceCheck: testEng.itemsExist,
      operations: {
        create: { contract: testEng.itemsCreate, summary: 'Create an item.' },
        update: { contract: testEng.itemsUpdate, summary: 'Update an item.' },
        read: { contract: testEng.itemsRead, summary: 'Read an item.' },
      },
    },
    {
      pattern: 'folder/:prefix*?',
      synopsis: 'Listable folders.',
      operations: {
        list: { contract: testEng.list, summary: 'List keys.' },
      },
    },
    {
      pattern: 'root-only',
      synopsis: 'Needs sudo.',
      sudo: true,
      operations: { update: { contract: testEng.echo, summary: 'Sudo write.' } },
    },
    {
      pattern: 'open/:x',
      synopsis: 'Needs no token.',
      unauthenticated: true,
      operations: { read: { contract: testEng.echo, summary: 'Open read.' } },
    },
    {
      pattern: 'special/:what',
      synopsis: 'Special answers.',
      operations: {
        read: { contract: testEng.special, summary: 'Special read.' },
        update: { contract: testEng.special, summary: 'Special write.' },
      },
    },
    {
      pattern: 'slow',
      synopsis: 'Answers when released.',
      operations: { read: { contract: testEng.slow, summary: 'Slow read.' } },
    },
    {
      pattern: 'validated',
      synopsis: 'Validated body.',
      operations: {
        update: { contract: testEng.validated, summary: 'Needs a count.' },
      },
    },
  ],
};

export interface TestEngine {
  items: Set<string>;
  /** the slow route answers once this resolves */
  hold: Promise<void>;
  slowStarted: boolean;
  requests: Array<{ req: EngineRequest; headers: Record<string, string> }>;
}

/** An auth block as a login answers it (the special/login route). */
const loginAuth = () => ({
  client_token: 'issued-token',
  accessor: 'issued-accessor',
  policies: ['default'],
  token_policies: ['default'],
  metadata: null,
  lease_duration: 60,
  renewable: true,
  entity_id: '',
  token_type: 'service',
  orphan: true,
  num_uses: 0,
});

/** Serves the test engine's contracts on the transport. */
export function serveTestEngine(transport: InProcessTransport): TestEngine {
  const engine: TestEngine = {
    items: new Set(['existing']),
    requests: [],
    hold: Promise.resolve(),
    slowStarted: false,
  };
  transport.serve(testEng.slow, 'testeng', async () => {
    engine.slowStarted = true;
    await engine.hold;
    return { data: { slow: true } };
  });
  const record = (req: EngineRequest, headers: Record<string, string>): void => {
    engine.requests.push({ req, headers });
  };
  const echo = async (req: EngineRequest, headers: Record<string, string>): Promise<EngineResponse> => {
    record(req, headers);
    return {
      data: {
        operation: req.operation,
        path: req.path,
        params: req.params,
        body: req.body,
        query: req.query,
        headers: req.headers,
      },
    };
  };
  transport.serve(testEng.echo, 'testeng', echo);
  transport.serve(testEng.echoRead, 'testeng', (req, headers) =>
    echo({ ...req, query: { ...req.query } }, headers),
  );
  transport.serve(testEng.itemsExist, 'testeng', async (req) => ({
    exists: engine.items.has(req.params['name'] ?? ''),
  }));
  transport.serve(testEng.itemsCreate, 'testeng', async (req) => {
    engine.items.add(req.params['name'] ?? '');
    return { data: { created: req.params['name'] } };
  });
  transport.serve(testEng.itemsUpdate, 'testeng', async (req) => ({ data: { updated: req.params['name'] } }));
  transport.serve(testEng.itemsRead, 'testeng', async (req) => {
    if (!engine.items.has(req.params['name'] ?? '')) throw new DomainError('not_found', '');
    return { data: { name: req.params['name'] } };
  });
  transport.serve(testEng.list, 'testeng', async (req, headers) => {
    record(req, headers);
    const prefix = req.params['prefix'] ?? '';
    return { data: { keys: prefix === 'empty/' ? [] : ['a', 'b/'] } };
  });
  transport.serve(testEng.validated, 'testeng', async (req) => ({ data: { count: req.body.count } }));
  transport.serve(testEng.special, 'testeng', async (req): Promise<EngineResponse> => {
    switch (req.params['what'] ?? '') {
      case 'raw':
        return { kind: 'raw', status: 299, body: { raw: true } };
      case 'text':
        return { kind: 'raw', body: 'plain text', contentType: 'text/plain' };
      case 'injected':
        return { kind: 'injected', data: { keys: ['x'], request_id: 'shadowed' } };
      case 'empty':
        return {};
      case 'login':
        return { auth: loginAuth() };
      case 'accepted':
        return { status: 202, warnings: ['started'] };
      case 'gone':
        throw new DomainError('not_found', '', { data: null, metadata: { version: 2, destroyed: true } }, [
          'deleted',
        ]);
      case 'denied':
        throw new DomainError('permission_denied', 'permission denied');
      case 'bad':
        throw new DomainError('invalid_request', 'check-and-set parameter did not match the current version');
      case 'boom':
        throw new Error('secret-bearing internal failure');
      case 'corrupt':
        throw new DomainError('internal', 'barrier: message authentication failed');
      default:
        return { data: { what: req.params['what'] } };
    }
  });
  return engine;
}

export interface Harness {
  gateway: Gateway;
  transport: InProcessTransport;
  core: FakeCoreSys;
  engine: TestEngine;
  url: string;
  close(): Promise<void>;
}

/** The route tables of the harness's mounts; pki/ has none (its service does not exist: 503). */
export function harnessRouteTable(mount: Pick<MountInfo, 'type' | 'options'>): RouteTable | undefined {
  switch (mount.type) {
    case 'testeng':
      return testEngineRoutes;
    case 'system':
      return systemRoutes;
    case 'kv':
      return mount.options['version'] === '2' ? kvV2Routes : kvV1Routes;
    default:
      return undefined;
  }
}

/** The service named for a mount without a route table: pki/ is planned, its service never runs. */
export function harnessServiceFor(type: string): string | undefined {
  return PLANNED_MOUNT_TYPES.find((entry) => entry.type === type)?.service;
}

export async function startHarness(
  overrides: Partial<GatewayOptions> = {},
  transportLogger: TransportLogger = { error: () => undefined, warn: () => undefined },
): Promise<Harness> {
  const transport = new InProcessTransport({ logger: transportLogger });
  const core = new FakeCoreSys(transport);
  core.mounts = [
    { ...mountEntry('sys/', 'system'), table: 'system' },
    mountEntry('test/', 'testeng'),
    mountEntry('secret/', 'kv', { version: '2' }),
    mountEntry('pki/', 'pki'),
    mountEntry('kv1/', 'kv', { version: '1' }),
  ];
  const engine = serveTestEngine(transport);
  const gateway = createGateway({
    transport,
    listeners: { api: { address: '127.0.0.1:0' }, ops: { address: '127.0.0.1:0' } },
    logger: false,
    routeTableFor: harnessRouteTable,
    serviceFor: harnessServiceFor,
    ...overrides,
  });
  await gateway.listen();
  return {
    gateway,
    transport,
    core,
    engine,
    url: gateway.apiAddress,
    close: async () => {
      await gateway.close();
      await transport.close();
    },
  };
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  headers: Headers;
}

/** fetch with JSON decoding; `token` defaults to the root token (null: none). */
export async function call(
  h: Harness,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? ROOT_TOKEN : opts.token;
  if (token !== null) headers['x-service-token'] = token;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  const res = await fetch(`${h.url}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

export { rawExchange, statusesOf } from '@coffer/testing';
