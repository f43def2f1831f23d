import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { mountsMigration } from './migrations/0020_mounts';
import * as mountAuditKeys from './migrations/0112_mount_audit_keys';
import * as mountTainted from './migrations/0114_mount_tainted';
import * as mountMigrations from './migrations/0170_mount_migrations';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { MountsViewService } from './mounts-view.service';
import { MOUNTS_LOG } from './mounts.events';
import { MountsHandlers } from './mounts.handlers';
import { MountsEventLog, MountsProjection } from './mounts.projection';
import { MountsRepository } from './mounts.repository';
import { MountsService } from './mounts.service';
import { MountMigrationsRepository } from './mount-migrations.repository';
import { RemountHandlers } from './remount.handlers';
import { RemountService } from './remount.service';

export const mountsProviders: Provider[] = [
  MountsRepository,
  MountsProjection,
  writerProvider(MountsEventLog, CORE_SYS_EVENT_STORE, MOUNTS_LOG, MountsProjection),
  MountsService,
  MountsViewService,
  MountMigrationsRepository,
  RemountService,
];
export const mountsControllers: Type[] = [MountsHandlers, RemountHandlers];
export const mountsMigrations: Record<string, Migration> = {
  '0020_mounts': mountsMigration,
  '0112_mount_audit_keys': mountAuditKeys,
  '0114_mount_tainted': mountTainted,
  '0170_mount_migrations': mountMigrations,
};

export { MountsService, type MountKind } from './mounts.service';
export { toMountEntry } from './mount.view';
