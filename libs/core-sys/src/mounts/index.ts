import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { mountsMigration } from './migrations/0020_mounts';
import { MountsViewService } from './mounts-view.service';
import { MountsHandlers } from './mounts.handlers';
import { MountsRepository } from './mounts.repository';
import { MountsService } from './mounts.service';

export const mountsProviders: Provider[] = [MountsRepository, MountsService, MountsViewService];
export const mountsControllers: Type[] = [MountsHandlers];
export const mountsMigrations: Record<string, Migration> = {
  '0020_mounts': mountsMigration,
};

export { MountsService, mountEventTypes, type MountKind } from './mounts.service';
export { toMountEntry } from './mount.view';
