import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as haNodes from './migrations/0171_ha_nodes';
import { HaNodeRepository } from './ha-node.repository';
import { HaStatusHandlers } from './ha-status.handlers';
import { HaStatusService } from './ha-status.service';

export const haStatusProviders: Provider[] = [HaNodeRepository, HaStatusService];
export const haStatusControllers: Type[] = [HaStatusHandlers];
export const haStatusMigrations: Record<string, Migration> = { '0171_ha_nodes': haNodes };
