import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';
import type { ResourceKind } from '../shared/oidc.table';
import {
  assignmentStateSchema,
  clientStateSchema,
  keyStateSchema,
  providerStateSchema,
  scopeStateSchema,
} from './oidc-config.state';

/**
 * Events of one OIDC configuration resource (`oidc-config/<kind>/<namespace or ->/<name>`): each
 * carries the resource's whole new state. The payload is barrier-encrypted in the log.
 */
export const oidcKeyWritten = defineEvent('OidcKeyWritten', 1, z.object({ key: keyStateSchema }));
/** a rotation, by hand or on time; appended at the expected version so that one replica wins */
export const oidcKeyRotated = defineEvent('OidcKeyRotated', 1, z.object({ key: keyStateSchema }));
export const oidcProviderWritten = defineEvent(
  'OidcProviderWritten',
  1,
  z.object({ provider: providerStateSchema }),
);
export const oidcScopeWritten = defineEvent('OidcScopeWritten', 1, z.object({ scope: scopeStateSchema }));
export const oidcClientWritten = defineEvent('OidcClientWritten', 1, z.object({ client: clientStateSchema }));
export const oidcAssignmentWritten = defineEvent(
  'OidcAssignmentWritten',
  1,
  z.object({ assignment: assignmentStateSchema }),
);
export const oidcResourceDeleted = defineEvent('OidcResourceDeleted', 1, z.object({}));

export const OIDC_CONFIG_EVENT_TYPES = {
  oidcKeyWritten,
  oidcKeyRotated,
  oidcProviderWritten,
  oidcScopeWritten,
  oidcClientWritten,
  oidcAssignmentWritten,
  oidcResourceDeleted,
} as const;
export type OidcConfigEvent = EventOf<typeof OIDC_CONFIG_EVENT_TYPES>;

/** Which resource an append is about. */
export interface ResourceRef {
  namespace: string;
  kind: ResourceKind;
  name: string;
}

export const OIDC_CONFIG_LOG = defineAggregateLog({
  description: 'an OIDC configuration event',
  events: OIDC_CONFIG_EVENT_TYPES,
  // the root namespace ("") as "-": namespace paths end in "/", which is encoded
  stream: (ref: ResourceRef) =>
    `oidc-config/${ref.kind}/${encodeURIComponent(ref.namespace) || '-'}/${ref.name}`,
});
