import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type JsonObject,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime, StoredEvent } from '@coffer/event-store';
import { OIDC_CONFIG_LOG, type OidcConfigEvent } from '../config/oidc-config.events';
import { effectiveIssuer } from '../config/oidc-config.service';
import { assignmentView, clientView, keyView, providerView, scopeView } from '../config/oidc-config.view';
import type { ResourceKindName, ResourceStates } from '../config/oidc-config.state';
import { OIDC_EVENT_STORE, OIDC_OPTIONS, OIDC_RUNTIME, type OidcModuleOptions } from '../oidc.di';

/** The path's first segment under `oidc/` and the resource kind it names. */
const KINDS: Readonly<Record<string, ResourceKindName>> = {
  key: 'key',
  provider: 'provider',
  scope: 'scope',
  client: 'client',
  assignment: 'assignment',
};
const KNOWN = 'oidc/key, oidc/provider, oidc/scope, oidc/client and oidc/assignment (and their <name>)';

type Resource = { [K in ResourceKindName]: { kind: K; state: ResourceStates[K] } }[ResourceKindName];

/** A resource's state after one of its events (each carries the whole new state; undefined: deleted). */
function evolve(event: OidcConfigEvent): Resource | undefined {
  switch (event.type) {
    case 'OidcKeyWritten':
    case 'OidcKeyRotated':
      return { kind: 'key', state: event.data.key };
    case 'OidcProviderWritten':
      return { kind: 'provider', state: event.data.provider };
    case 'OidcScopeWritten':
      return { kind: 'scope', state: event.data.scope };
    case 'OidcClientWritten':
      return { kind: 'client', state: event.data.client };
    case 'OidcAssignmentWritten':
      return { kind: 'assignment', state: event.data.assignment };
    case 'OidcResourceDeleted':
      return undefined;
  }
}

/**
 * `oidc.history.state`: identity/oidc/{key,provider,scope,client,assignment}[/<name>] of a
 * namespace as the live reads and LISTs answered them at an instant. Each resource is its own
 * stream (`oidc-config/<kind>/<namespace>/<name>`) whose every event holds its whole state: the
 * last one recorded at or before the instant decides. The views are the live reads' fields (the
 * int spec compares them with the live answers) without what must never leave: a key's private
 * JWKs are never read out, and a client's `client_secret` is left out (the live read shows it,
 * history does not). A LIST is every resource stream's last event then (one scan of the oidc log).
 */
@Injectable()
export class OidcHistoryService {
  constructor(
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(OIDC_EVENT_STORE) private readonly store: EventStore,
    @Inject(OIDC_OPTIONS) private readonly options: Pick<OidcModuleOptions, 'apiAddr'>,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const [oidc, head, name, ...rest] = path.split('/');
    const kind = head !== undefined && Object.hasOwn(KINDS, head) ? KINDS[head] : undefined;
    if (oidc !== 'oidc' || !kind || rest.length > 0 || name === '')
      throw invalidRequest(`no history of "identity/${req.path}": ${KNOWN} have one`);
    const namespace = req.namespace;
    const list = req.query['list'] === 'true';
    if (name === undefined) return this.listAt(namespace, kind, at, req.query['allowed_client_id'] ?? '');
    if (list) throw invalidRequest(`no history of a LIST of "identity/${req.path}"`);
    const stream = OIDC_CONFIG_LOG.streamOf({ namespace, kind, name });
    const { state, wal } = await this.store.foldStreamAt<Resource | undefined>(
      stream,
      at,
      undefined,
      (_, stored) => evolve(OIDC_CONFIG_LOG.decode(stored)),
    );
    if (!state) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: this.view(state, namespace, name), warnings: [] };
  }

  private async listAt(
    namespace: string,
    kind: ResourceKindName,
    at: Date,
    allowedClientId: string,
  ): Promise<EngineHistoryStateResponse> {
    const prefix = OIDC_CONFIG_LOG.streamOf({ namespace, kind, name: '' });
    let wal = 0;
    const live: { name: string; resource: Resource }[] = [];
    for (const last of await this.store.lastEventsOfPrefixAt(prefix, at)) {
      wal = Math.max(wal, last.wal);
      const resource = this.decode(last);
      if (resource) live.push({ name: last.stream.slice(prefix.length), resource });
    }
    live.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let shown = live;
    if (kind === 'provider' && allowedClientId !== '') {
      shown = live.filter(({ resource }) => {
        const ids = resource.kind === 'provider' ? resource.state.allowedClientIds : [];
        return ids.includes('*') || ids.includes(allowedClientId);
      });
    }
    const keys = shown.map((r) => r.name);
    // as the live LISTs: providers and clients answer their reads as key_info
    if (kind !== 'provider' && kind !== 'client') return { found: true, wal, state: { keys }, warnings: [] };
    const keyInfo: JsonObject = {};
    for (const { name, resource } of shown) keyInfo[name] = this.view(resource, namespace, name);
    return { found: true, wal, state: { keys, key_info: keyInfo }, warnings: [] };
  }

  private decode(stored: StoredEvent): Resource | undefined {
    return evolve(OIDC_CONFIG_LOG.decode(stored));
  }

  /** The live read's fields (the views of oidc-config.view.ts), the client's secret left out. */
  private view(resource: Resource, namespace: string, name: string): JsonObject {
    switch (resource.kind) {
      case 'key':
        return keyView(resource.state);
      case 'provider':
        return providerView(
          resource.state,
          effectiveIssuer(resource.state, this.options.apiAddr, namespace, name),
        );
      case 'scope':
        return scopeView(resource.state);
      case 'client': {
        const { client_secret: _secret, ...shown } = clientView(resource.state);
        return shown;
      }
      case 'assignment':
        return assignmentView(resource.state);
    }
  }
}
