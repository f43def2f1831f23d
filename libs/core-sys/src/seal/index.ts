import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { DevBootstrapService } from './dev-bootstrap.service';
import { sealConfigMigration } from './migrations/0010_seal_config';
import {
  DEFAULT_SEAL_COORDINATOR_SETTINGS,
  SEAL_COORDINATOR_SETTINGS,
  SealCoordinator,
} from './seal-coordinator';
import { SealLifecycleService } from './seal-lifecycle.service';
import { SealHandlers } from './seal.handlers';
import { SealRepository } from './seal.repository';
import { DEV_BOOTSTRAPPER, SealService } from './seal.service';

export const sealProviders: Provider[] = [
  SealRepository,
  SealService,
  SealLifecycleService,
  SealCoordinator,
  DevBootstrapService,
  { provide: DEV_BOOTSTRAPPER, useExisting: DevBootstrapService },
  { provide: SEAL_COORDINATOR_SETTINGS, useValue: DEFAULT_SEAL_COORDINATOR_SETTINGS },
];
export const sealControllers: Type[] = [SealHandlers];
export const sealMigrations: Record<string, Migration> = {
  '0010_seal_config': sealConfigMigration,
};

export { SealService, type DevBootstrapOptions, type DevBootstrapResult } from './seal.service';
export {
  SealCoordinator,
  SEAL_COORDINATOR_SETTINGS,
  DEFAULT_SEAL_COORDINATOR_SETTINGS,
  type SealCoordinatorSettings,
} from './seal-coordinator';
export { LEADER_QUEUE, PEER_QUEUE, leaderKeyring, peerKeyring } from './seal.contracts';
export { SERVICE_VERSION } from './version';
