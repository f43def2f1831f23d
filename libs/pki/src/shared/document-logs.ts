import { AggregateWriter } from '@coffer/event-store';
import type { SETTINGS_EVENT_TYPES } from '../settings/settings.events';
import type { ISSUER_EVENT_TYPES } from '../issuer/issuer.events';
import type { ROLE_EVENT_TYPES } from '../roles/role.events';
import type { UNIFIED_REVOCATION_EVENT_TYPES } from '../unified/unified-revocation.events';
import type { DocumentAppend } from './document.projection';

/** Writers of the document aggregates (each projected by DocumentProjection). */
export abstract class IssuerEventLog extends AggregateWriter<
  typeof ISSUER_EVENT_TYPES,
  void,
  DocumentAppend
> {}
export abstract class RoleEventLog extends AggregateWriter<typeof ROLE_EVENT_TYPES, void, DocumentAppend> {}
export abstract class SettingsEventLog extends AggregateWriter<
  typeof SETTINGS_EVENT_TYPES,
  void,
  DocumentAppend
> {}
export abstract class UnifiedRevocationEventLog extends AggregateWriter<
  typeof UNIFIED_REVOCATION_EVENT_TYPES,
  void,
  DocumentAppend
> {}
