import { randomBytes, randomUUID } from 'node:crypto';
import { graphError, json, readBody, serveArm, serveGraph } from './azure-server.api';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Azure over HTTPS, speaking its wire protocol: the Entra ID token authority
 * (OpenID configuration, instance discovery, the v2.0 client-credentials token endpoint), Microsoft
 * Graph v1.0 (applications with addPassword / removePassword, service principals, groups and their
 * members) and Resource Manager (role definitions, role assignments). Three listeners, one state;
 * each checks its bearer token's audience. Tests inject faults (status, delay, hold) and read what
 * exists, to check nothing is left behind.
 */

export interface FakeApplication {
  id: string;
  appId: string;
  displayName: string;
  passwords: { keyId: string; displayName: string; endDateTime: string; secret: string }[];
}
export interface FakeRoleAssignment {
  id: string;
  scope: string;
  roleDefinitionId: string;
  principalId: string;
}
interface Call {
  listener: 'authority' | 'graph' | 'arm';
  method: string;
  path: string;
}
interface Fault {
  method?: string;
  path: RegExp;
  status?: number;
  delayMs?: number;
  times: number;
  hold?: { reached: () => void; released: Promise<void> };
}

export interface FakeAzure {
  authorityHost: string;
  graphEndpoint: string;
  resourceManagerEndpoint: string;
  tenantId: string;
  subscriptionId: string;
  /** the service principal Coffer acts as */
  clientId: string;
  clientSecret: string;
  applications: Map<string, FakeApplication>;
  servicePrincipals: Map<string, { id: string; appId: string }>;
  groups: Map<string, { id: string; displayName: string; members: Set<string> }>;
  roleDefinitions: { id: string; roleName: string }[];
  roleAssignments: Map<string, FakeRoleAssignment>;
  calls: Call[];
  /** the next `times` matching calls answer `status` (with a Graph/ARM error body) */
  fail(method: string | undefined, path: RegExp, status: number, times?: number): void;
  /** the next `times` matching calls wait `delayMs` before being served */
  delay(method: string | undefined, path: RegExp, delayMs: number, times?: number): void;
  /** the next matching call is served only after release(); `reached` resolves when it arrives */
  hold(method: string | undefined, path: RegExp): { reached: Promise<void>; release: () => void };
  clearFaults(): void;
  /** a role definition with this name, at the subscription */
  addRoleDefinition(roleName: string): string;
  addGroup(displayName: string): string;
  /** what credentials created and is still there: applications and passwords named `coffer*`, service principals, role assignments, group members */
  leftovers(): {
    applications: number;
    passwords: number;
    servicePrincipals: number;
    roleAssignments: number;
    memberships: number;
  };
  stop(): Promise<void>;
}

export interface FakeAzureOptions {
  cert: string;
  key: string;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startFakeAzure(options: FakeAzureOptions): Promise<FakeAzure> {
  const tenantId = randomUUID();
  const subscriptionId = randomUUID();
  const clientId = randomUUID();
  const clientSecret = randomBytes(24).toString('base64url');
  const tokens = new Map<string, { audience: string; appId: string }>();
  let faults: Fault[] = [];
  const servers = {
    authority: createServer({ cert: options.cert, key: options.key }),
    graph: createServer({ cert: options.cert, key: options.key }),
    arm: createServer({ cert: options.cert, key: options.key }),
  };
  const [authorityHost, graphEndpoint, resourceManagerEndpoint] = await Promise.all([
    listen(servers.authority),
    listen(servers.graph),
    listen(servers.arm),
  ]);

  const azure: FakeAzure = {
    authorityHost,
    graphEndpoint,
    resourceManagerEndpoint,
    tenantId,
    subscriptionId,
    clientId,
    clientSecret,
    applications: new Map(),
    servicePrincipals: new Map(),
    groups: new Map(),
    roleDefinitions: [],
    roleAssignments: new Map(),
    calls: [],
    fail(method, path, status, times = 1) {
      faults.push({ ...(method ? { method } : {}), path, status, times });
    },
    delay(method, path, delayMs, times = 1) {
      faults.push({ ...(method ? { method } : {}), path, delayMs, times });
    },
    hold(method, path) {
      let release!: () => void;
      let reached!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const reachedP = new Promise<void>((r) => (reached = r));
      faults.push({ ...(method ? { method } : {}), path, times: 1, hold: { reached, released } });
      return { reached: reachedP, release };
    },
    clearFaults() {
      faults = [];
    },
    addRoleDefinition(roleName) {
      const id = `/subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/${randomUUID()}`;
      azure.roleDefinitions.push({ id, roleName });
      return id;
    },
    addGroup(displayName) {
      const id = randomUUID();
      azure.groups.set(id, { id, displayName, members: new Set() });
      return id;
    },
    leftovers() {
      let memberships = 0;
      for (const g of azure.groups.values()) memberships += g.members.size;
      const apps = [...azure.applications.values()];
      return {
        applications: apps.filter((a) => a.displayName.startsWith('coffer-')).length,
        passwords: apps.flatMap((a) => a.passwords).filter((p) => p.displayName.startsWith('coffer')).length,
        servicePrincipals: azure.servicePrincipals.size,
        roleAssignments: azure.roleAssignments.size,
        memberships,
      };
    },
    async stop() {
      await Promise.all(
        Object.values(servers).map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };

  /** Applies the first matching fault: true when it answered the request itself. */
  async function applyFault(method: string, path: string, res: ServerResponse): Promise<boolean> {
    const fault = faults.find((f) => f.times > 0 && (!f.method || f.method === method) && f.path.test(path));
    if (!fault) return false;
    fault.times--;
    if (fault.hold) {
      fault.hold.reached();
      await fault.hold.released;
      return false;
    }
    if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.status) {
      graphError(
        res,
        fault.status,
        fault.status === 404 ? 'Request_ResourceNotFound' : 'InjectedFault',
        'injected fault',
      );
      return true;
    }
    return false;
  }

  function bearer(req: IncomingMessage, res: ServerResponse, audience: string): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const known = token ? tokens.get(token) : undefined;
    if (!known || known.audience !== audience) {
      graphError(res, 401, 'InvalidAuthenticationToken', 'Access token is missing or invalid.');
      return false;
    }
    return true;
  }

  function credentialValid(id: string, secret: string): boolean {
    if (id === clientId) return secret === clientSecret;
    const app = [...azure.applications.values()].find((a) => a.appId === id);
    return !!app && app.passwords.some((p) => p.secret === secret);
  }

  const serveAuthority = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    text: string,
  ): Promise<void> => {
    const path = url.pathname;
    if (req.method === 'GET' && path === '/common/discovery/instance') {
      json(res, 200, {
        tenant_discovery_endpoint: `${authorityHost}/${tenantId}/v2.0/.well-known/openid-configuration`,
        'api-version': '1.1',
        metadata: [
          {
            preferred_network: new URL(authorityHost).host,
            preferred_cache: new URL(authorityHost).host,
            aliases: [new URL(authorityHost).host],
          },
        ],
      });
      return;
    }
    const oidc = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(path);
    if (req.method === 'GET' && oidc) {
      const t = oidc[1]!;
      json(res, 200, {
        token_endpoint: `${authorityHost}/${t}/oauth2/v2.0/token`,
        authorization_endpoint: `${authorityHost}/${t}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${authorityHost}/${t}/oauth2/v2.0/logout`,
        device_authorization_endpoint: `${authorityHost}/${t}/oauth2/v2.0/devicecode`,
        jwks_uri: `${authorityHost}/${t}/discovery/v2.0/keys`,
        issuer: `${authorityHost}/${t}/v2.0`,
        response_modes_supported: ['query', 'fragment', 'form_post'],
        token_endpoint_auth_methods_supported: [
          'client_secret_post',
          'private_key_jwt',
          'client_secret_basic',
        ],
      });
      return;
    }
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (req.method === 'POST' && tokenPath) {
      const form = new URLSearchParams(text);
      if (tokenPath[1] !== tenantId) {
        json(res, 400, {
          error: 'invalid_request',
          error_description: `AADSTS90002: Tenant '${tokenPath[1]}' not found.`,
        });
        return;
      }
      if (form.get('grant_type') !== 'client_credentials') {
        json(res, 400, {
          error: 'unsupported_grant_type',
          error_description: 'AADSTS70003: unsupported grant type',
        });
        return;
      }
      const id = form.get('client_id') ?? '';
      if (!credentialValid(id, form.get('client_secret') ?? '')) {
        json(res, 401, {
          error: 'invalid_client',
          error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${id}'.`,
          error_codes: [7000215],
        });
        return;
      }
      const scope = form.get('scope') ?? '';
      const audience = scope.replace(/\/\.default$/, '');
      const accessToken = randomBytes(32).toString('base64url');
      tokens.set(accessToken, { audience, appId: id });
      json(res, 200, {
        token_type: 'Bearer',
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: accessToken,
      });
      return;
    }
    graphError(res, 404, 'NotFound', `no route ${req.method} ${path}`);
  };

  const handler =
    (
      listener: Call['listener'],
      serve: (req: IncomingMessage, res: ServerResponse, url: URL, text: string) => Promise<void>,
    ) =>
    (req: IncomingMessage, res: ServerResponse): void => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const method = req.method ?? 'GET';
      azure.calls.push({ listener, method, path: url.pathname });
      void (async () => {
        // the whole request first: a delayed call still takes effect after its client gave up, as in Azure
        const text = await readBody(req);
        if (await applyFault(method, url.pathname, res)) return;
        await serve(req, res, url, text);
      })().catch(() => {
        if (!res.headersSent) graphError(res, 500, 'InternalServerError', 'fake azure failed');
      });
    };
  servers.authority.on('request', handler('authority', serveAuthority));
  servers.graph.on(
    'request',
    handler('graph', (req, res, url, text) =>
      bearer(req, res, graphEndpoint) ? serveGraph(azure, req, res, url, text) : Promise.resolve(),
    ),
  );
  servers.arm.on(
    'request',
    handler('arm', (req, res, url, text) =>
      bearer(req, res, resourceManagerEndpoint) ? serveArm(azure, req, res, url, text) : Promise.resolve(),
    ),
  );
  return azure;
}
