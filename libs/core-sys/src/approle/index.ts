import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0080 from './migrations/0080_approle';
import * as m0113 from './migrations/0113_approle_legacy_fields';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { ApproleSalt } from './approle-salt';
import { APPROLE_ROLE_LOG, APPROLE_SECRET_ID_LOG } from './approle.events';
import { ApproleHandlers } from './approle.handlers';
import {
  ApproleRoleEventLog,
  ApproleRoleProjection,
  ApproleSecretIdEventLog,
  ApproleSecretIdProjection,
} from './approle.projection';
import { ApproleRepository } from './approle.repository';
import { ApproleRoleService } from './approle-role.service';
import { ApproleSecretIdService } from './approle-secret-id.service';
import { ApproleSecretIdSweeper } from './approle-sweeper';

export const approleProviders: Provider[] = [
  ApproleRepository,
  ApproleRoleProjection,
  ApproleSecretIdProjection,
  writerProvider(ApproleRoleEventLog, CORE_SYS_EVENT_STORE, APPROLE_ROLE_LOG, ApproleRoleProjection),
  writerProvider(
    ApproleSecretIdEventLog,
    CORE_SYS_EVENT_STORE,
    APPROLE_SECRET_ID_LOG,
    ApproleSecretIdProjection,
  ),
  ApproleSalt,
  ApproleRoleService,
  ApproleSecretIdService,
  ApproleSecretIdSweeper,
];
export const approleControllers: Type[] = [ApproleHandlers];
export const approleMigrations: Record<string, Migration> = {
  '0080_approle': m0080,
  '0113_approle_legacy_fields': m0113,
};
