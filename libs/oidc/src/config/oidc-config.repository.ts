import { Injectable } from '@nestjs/common';
import { OidcDb, type ResourceKind } from '../shared/oidc.table';
import { SealedJson } from '../shared/sealed-json';
import type { ResourceRef } from './oidc-config.events';
import type { ClientState, ResourceKindName, ResourceStates } from './oidc-config.state';

/** What the read model holds of one resource: its stream version and state (null once deleted). */
export interface StoredResource<K extends ResourceKindName> {
  version: number;
  state: ResourceStates[K] | null;
}

export const resourceAad = (ref: ResourceRef): string =>
  `oidc/resource/${ref.kind}/${ref.namespace}/${ref.name}`;

/** All SQL of the configuration resources; bodies are opened here. */
@Injectable()
export class OidcConfigRepository {
  constructor(
    private readonly db: OidcDb,
    private readonly sealed: SealedJson,
  ) {}

  async get<K extends ResourceKindName>(
    namespace: string,
    kind: K,
    name: string,
  ): Promise<StoredResource<K> | undefined> {
    this.sealed.assertUnsealed();
    const row = await this.db
      .of()
      .selectFrom('resources')
      .select(['body', 'stream_version'])
      .where('namespace', '=', namespace)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
    if (!row) return undefined;
    const state =
      row.body === null
        ? null
        : this.sealed.open<ResourceStates[K]>(row.body, resourceAad({ namespace, kind, name }));
    return { version: row.stream_version, state };
  }

  /** Names of the live resources of a kind, sorted. */
  async names(namespace: string, kind: ResourceKind): Promise<string[]> {
    this.sealed.assertUnsealed();
    const rows = await this.db
      .of()
      .selectFrom('resources')
      .select('name')
      .where('namespace', '=', namespace)
      .where('kind', '=', kind)
      .where('body', 'is not', null)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  /** Every live resource of a kind with its state. */
  async all<K extends ResourceKindName>(
    namespace: string,
    kind: K,
  ): Promise<{ name: string; state: ResourceStates[K] }[]> {
    this.sealed.assertUnsealed();
    const rows = await this.db
      .of()
      .selectFrom('resources')
      .select(['name', 'body'])
      .where('namespace', '=', namespace)
      .where('kind', '=', kind)
      .where('body', 'is not', null)
      .orderBy('name')
      .execute();
    return rows.flatMap((r) =>
      r.body === null
        ? []
        : [
            {
              name: r.name,
              state: this.sealed.open<ResourceStates[K]>(
                r.body,
                resourceAad({ namespace, kind, name: r.name }),
              ),
            },
          ],
    );
  }

  async clientById(
    namespace: string,
    clientId: string,
  ): Promise<{ name: string; state: ClientState } | undefined> {
    this.sealed.assertUnsealed();
    const row = await this.db
      .of()
      .selectFrom('resources')
      .select(['name', 'body'])
      .where('namespace', '=', namespace)
      .where('kind', '=', 'client')
      .where('client_id', '=', clientId)
      .where('body', 'is not', null)
      .executeTakeFirst();
    if (!row?.body) return undefined;
    const aad = resourceAad({ namespace, kind: 'client', name: row.name });
    return { name: row.name, state: this.sealed.open<ClientState>(row.body, aad) };
  }

  /** Keys whose rotation time has come (any namespace). */
  async dueKeys(nowMs: number, limit: number): Promise<{ namespace: string; name: string }[]> {
    return this.db
      .of()
      .selectFrom('resources')
      .select(['namespace', 'name'])
      .where('kind', '=', 'key')
      .where('next_rotation_ms', '<=', nowMs)
      .where('body', 'is not', null)
      .orderBy('next_rotation_ms')
      .limit(limit)
      .execute();
  }
}
