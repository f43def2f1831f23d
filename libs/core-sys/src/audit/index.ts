import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import * as m0090 from './migrations/0090_audit';
import { AUDIT_LOG } from './audit.events';
import { AuditHandlers } from './audit.handlers';
import { AuditEventLog, AuditProjection } from './audit.projection';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

export const auditProviders: Provider[] = [
  AuditRepository,
  AuditProjection,
  writerProvider(AuditEventLog, CORE_SYS_EVENT_STORE, AUDIT_LOG, AuditProjection),
  AuditService,
];
export const auditControllers: Type[] = [AuditHandlers];
export const auditMigrations: Record<string, Migration> = {
  '0090_audit': m0090,
};
