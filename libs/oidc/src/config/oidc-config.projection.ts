import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import { OidcDb, type OidcTrx } from '../shared/oidc.table';
import { SealedJson } from '../shared/sealed-json';
import type { OIDC_CONFIG_EVENT_TYPES, ResourceRef } from './oidc-config.events';
import { resourceAad } from './oidc-config.repository';

type ConfigEvents = typeof OIDC_CONFIG_EVENT_TYPES;

/**
 * One row per resource, its state sealed; a delete keeps the row (body null) so that the next
 * write is checked against the stream's version.
 */
@Injectable()
export class OidcConfigProjection implements Projection<ConfigEvents, void, ResourceRef> {
  constructor(
    private readonly db: OidcDb,
    private readonly sealed: SealedJson,
  ) {}

  async apply(trx: OidcTrx, events: AppendedOf<ConfigEvents>[], ref: ResourceRef): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    const state = stateOf(last);
    const row = {
      body: state === null ? null : this.sealed.seal(state, resourceAad(ref)),
      client_id: last.type === 'OidcClientWritten' ? last.data.client.clientId : null,
      next_rotation_ms:
        last.type === 'OidcKeyWritten' || last.type === 'OidcKeyRotated'
          ? last.data.key.nextRotationMs
          : null,
      stream_version: versionAfter(events),
    };
    await this.db
      .of(trx)
      .insertInto('resources')
      .values({ namespace: ref.namespace, kind: ref.kind, name: ref.name, ...row })
      .onConflict((c) => c.columns(['namespace', 'kind', 'name']).doUpdateSet(row))
      .execute();
  }
}

function stateOf(event: AppendedOf<ConfigEvents>): object | null {
  switch (event.type) {
    case 'OidcKeyWritten':
    case 'OidcKeyRotated':
      return event.data.key;
    case 'OidcProviderWritten':
      return event.data.provider;
    case 'OidcScopeWritten':
      return event.data.scope;
    case 'OidcClientWritten':
      return event.data.client;
    case 'OidcAssignmentWritten':
      return event.data.assignment;
    case 'OidcResourceDeleted':
      return null;
  }
}

/** Appends to one resource's stream: `append(ref, expectedVersion, events)`. */
export abstract class OidcConfigEventLog extends AggregateWriter<ConfigEvents, void, ResourceRef> {}
