import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { namespacesMigration } from './migrations/0140_namespaces';
import { namespaceScopingMigration } from './migrations/0141_namespace_scoping';
import { identityNamespacesMigration } from './migrations/0156_identity_namespaces';
import { NAMESPACE_LOG } from './namespace.events';
import { NamespaceHandlers } from './namespace.handlers';
import { NamespaceEventLog, NamespaceProjection } from './namespace.projection';
import { NamespaceRepository } from './namespace.repository';
import { NamespaceService } from './namespace.service';
import { NamespaceLockService } from './namespace-lock.service';

export const namespacesProviders: Provider[] = [
  NamespaceRepository,
  NamespaceProjection,
  writerProvider(NamespaceEventLog, CORE_SYS_EVENT_STORE, NAMESPACE_LOG, NamespaceProjection),
  NamespaceService,
  NamespaceLockService,
];
export const namespacesControllers: Type[] = [NamespaceHandlers];
export const namespacesMigrations: Record<string, Migration> = {
  '0140_namespaces': namespacesMigration,
  '0141_namespace_scoping': namespaceScopingMigration,
  '0156_identity_namespaces': identityNamespacesMigration,
};
export { NAMESPACE_LOG } from './namespace.events';
export { NamespaceService } from './namespace.service';
