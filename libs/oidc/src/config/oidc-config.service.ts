import { Inject, Injectable } from '@nestjs/common';
import { randomBase62 } from '@coffer/barrier';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { oidcContracts } from '@coffer/contracts/oidc';
import { OIDC_OPTIONS, type OidcModuleOptions } from '../oidc.di';
import { decideAssignment, decideClient, decideProvider, decideScope } from './oidc-config.decider';
import { ALLOW_ALL_ASSIGNMENT, DEFAULT_PROVIDER_NAME, type ProviderState } from './oidc-config.state';
import { OidcDefaults } from './oidc-defaults.service';
import { decided, OidcResources } from './oidc-resources';
import { assignmentView, clientView, providerView, scopeView } from './oidc-config.view';

type C = typeof oidcContracts;

/** Vault's client id and secret shapes (base62, the secret with its "hvo_secret_" prefix). */
const CLIENT_ID_LENGTH = 32;
const CLIENT_SECRET_PREFIX = 'hvo_secret_';
const CLIENT_SECRET_LENGTH = 64;

/** The issuer of a provider's tokens: its explicit issuer or the API address, plus its path. */
export function effectiveIssuer(
  provider: ProviderState,
  apiAddr: string,
  namespace: string,
  name: string,
): string {
  const base = provider.issuer !== '' ? provider.issuer : apiAddr.replace(/\/+$/, '');
  return `${base}/v1/${namespace}identity/oidc/provider/${name}`;
}

const referencedBy = (what: string, name: string, users: string, names: string[]): string =>
  `unable to delete ${what} ${JSON.stringify(name)} because it is currently referenced by these ${users}: ${names.join(', ')}`;

/** identity/oidc/provider, scope, client and assignment (named keys: OidcKeyService). */
@Injectable()
export class OidcConfigService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    @Inject(OIDC_OPTIONS) private readonly options: OidcModuleOptions,
  ) {}

  async writeProvider(req: RequestOf<C['providerWrite']>): Promise<ResponseOf<C['providerWrite']>> {
    const namespace = await this.ready(req);
    const scopes = new Map(
      (await this.resources.repo.all(namespace, 'scope')).map((s) => [s.name, s.state.template]),
    );
    const warnings = await this.resources.write(
      { namespace, kind: 'provider', name: req.params.name },
      (current) => {
        const { state, warnings } = decided(decideProvider(current, req.body, (scope) => scopes.get(scope)));
        return {
          events: [{ type: 'OidcProviderWritten', data: { provider: state } }],
          result: warnings,
        };
      },
    );
    return { data: null, warnings };
  }

  async readProvider(req: RequestOf<C['providerRead']>): Promise<ResponseOf<C['providerRead']>> {
    const namespace = await this.ready(req);
    const provider = await this.resources.get(namespace, 'provider', req.params.name);
    if (!provider) return { data: null };
    return { data: this.providerView(provider, namespace, req.params.name) };
  }

  private providerView(provider: ProviderState, namespace: string, name: string) {
    return providerView(provider, effectiveIssuer(provider, this.options.apiAddr, namespace, name));
  }

  async listProviders(req: RequestOf<C['providerList']>): Promise<ResponseOf<C['providerList']>> {
    const namespace = await this.ready(req);
    const filter = req.query['allowed_client_id'] ?? '';
    const providers = (await this.resources.repo.all(namespace, 'provider')).filter(
      ({ state }) =>
        filter === '' || state.allowedClientIds.includes('*') || state.allowedClientIds.includes(filter),
    );
    const keyInfo = Object.fromEntries(
      providers.map(({ name, state }) => [name, this.providerView(state, namespace, name)]),
    );
    return { data: { keys: providers.map((p) => p.name), key_info: keyInfo } };
  }

  async deleteProvider(req: RequestOf<C['providerDelete']>): Promise<ResponseOf<C['providerDelete']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    if (name === DEFAULT_PROVIDER_NAME)
      throw invalidRequest(`deletion of OIDC provider ${JSON.stringify(DEFAULT_PROVIDER_NAME)} not allowed`);
    await this.deleteResource(namespace, 'provider', name);
    return {};
  }

  async writeScope(req: RequestOf<C['scopeWrite']>): Promise<ResponseOf<C['scopeWrite']>> {
    const namespace = await this.ready(req);
    await this.resources.write({ namespace, kind: 'scope', name: req.params.name }, (current) => {
      const { state } = decided(decideScope(req.params.name, current, req.body));
      return {
        events: [{ type: 'OidcScopeWritten', data: { scope: state } }],
        result: undefined,
      };
    });
    return {};
  }

  async readScope(req: RequestOf<C['scopeRead']>): Promise<ResponseOf<C['scopeRead']>> {
    const scope = await this.resources.get(await this.ready(req), 'scope', req.params.name);
    return { data: scope ? scopeView(scope) : null };
  }

  async deleteScope(req: RequestOf<C['scopeDelete']>): Promise<ResponseOf<C['scopeDelete']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    const users = (await this.resources.repo.all(namespace, 'provider'))
      .filter(({ state }) => state.scopesSupported.includes(name))
      .map((p) => p.name);
    if (users.length > 0) throw invalidRequest(referencedBy('scope', name, 'providers', users));
    await this.deleteResource(namespace, 'scope', name);
    return {};
  }

  async writeClient(req: RequestOf<C['clientWrite']>): Promise<ResponseOf<C['clientWrite']>> {
    const namespace = await this.ready(req);
    const keys = new Map((await this.resources.repo.all(namespace, 'key')).map((k) => [k.name, k.state]));
    const assignments = new Set(await this.resources.repo.names(namespace, 'assignment'));
    await this.resources.write({ namespace, kind: 'client', name: req.params.name }, (current) => {
      const { state } = decided(
        decideClient(current, req.body, {
          keyVerificationTtl: (key) => keys.get(key)?.verificationTtl,
          assignmentExists: (name) => assignments.has(name),
          generateId: () => randomBase62(CLIENT_ID_LENGTH),
          generateSecret: () => CLIENT_SECRET_PREFIX + randomBase62(CLIENT_SECRET_LENGTH),
        }),
      );
      return {
        events: [{ type: 'OidcClientWritten', data: { client: state } }],
        result: undefined,
      };
    });
    return {};
  }

  async readClient(req: RequestOf<C['clientRead']>): Promise<ResponseOf<C['clientRead']>> {
    const client = await this.resources.get(await this.ready(req), 'client', req.params.name);
    return { data: client ? clientView(client) : null };
  }

  async listClients(req: RequestOf<C['clientList']>): Promise<ResponseOf<C['clientList']>> {
    const clients = await this.resources.repo.all(await this.ready(req), 'client');
    const keyInfo = Object.fromEntries(clients.map(({ name, state }) => [name, clientView(state)]));
    return { data: { keys: clients.map((c) => c.name), key_info: keyInfo } };
  }

  async deleteClient(req: RequestOf<C['clientDelete']>): Promise<ResponseOf<C['clientDelete']>> {
    await this.deleteResource(await this.ready(req), 'client', req.params.name);
    return {};
  }

  async writeAssignment(req: RequestOf<C['assignmentWrite']>): Promise<ResponseOf<C['assignmentWrite']>> {
    const namespace = await this.ready(req);
    if (req.params.name === ALLOW_ALL_ASSIGNMENT)
      throw invalidRequest(`modification of assignment ${JSON.stringify(ALLOW_ALL_ASSIGNMENT)} not allowed`);
    await this.resources.write({ namespace, kind: 'assignment', name: req.params.name }, (current) => {
      const { state } = decided(decideAssignment(current, req.body));
      return {
        events: [{ type: 'OidcAssignmentWritten', data: { assignment: state } }],
        result: undefined,
      };
    });
    return {};
  }

  async readAssignment(req: RequestOf<C['assignmentRead']>): Promise<ResponseOf<C['assignmentRead']>> {
    const found = await this.resources.get(await this.ready(req), 'assignment', req.params.name);
    return { data: found ? assignmentView(found) : null };
  }

  async deleteAssignment(req: RequestOf<C['assignmentDelete']>): Promise<ResponseOf<C['assignmentDelete']>> {
    const namespace = await this.ready(req);
    const { name } = req.params;
    if (name === ALLOW_ALL_ASSIGNMENT)
      throw invalidRequest(`deletion of assignment ${JSON.stringify(ALLOW_ALL_ASSIGNMENT)} not allowed`);
    const users = (await this.resources.repo.all(namespace, 'client'))
      .filter(({ state }) => state.assignments.includes(name))
      .map((c) => c.name);
    if (users.length > 0) throw invalidRequest(referencedBy('assignment', name, 'clients', users));
    await this.deleteResource(namespace, 'assignment', name);
    return {};
  }

  /** Names of a kind (LIST). */
  async list(
    req: RequestOf<C['scopeList']>,
    kind: 'scope' | 'assignment',
  ): Promise<ResponseOf<C['scopeList']>> {
    return { data: { keys: await this.resources.repo.names(await this.ready(req), kind) } };
  }

  /** Whether the target of a write exists (create vs update in the ACL). */
  async exists(
    req: RequestOf<C['scopeList']> & { params: Record<string, string> },
    kind: 'provider' | 'scope' | 'client' | 'assignment' | 'key',
  ): Promise<{ exists: boolean }> {
    const namespace = await this.ready(req);
    return { exists: (await this.resources.get(namespace, kind, req.params['name'] ?? '')) !== undefined };
  }

  async deleteResource(
    namespace: string,
    kind: 'provider' | 'scope' | 'client' | 'assignment' | 'key',
    name: string,
  ): Promise<void> {
    await this.resources.write({ namespace, kind, name }, (current) => ({
      events: current === undefined ? [] : [{ type: 'OidcResourceDeleted' as const, data: {} }],
      result: undefined,
    }));
  }

  private async ready(req: { mount: { namespace: string } }): Promise<string> {
    await this.defaults.ensure(req.mount.namespace);
    return req.mount.namespace;
  }
}
