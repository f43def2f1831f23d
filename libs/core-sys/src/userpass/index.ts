import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0060 from './migrations/0060_userpass_users';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { USERPASS_LOG } from './userpass.events';
import { UserpassHandlers } from './userpass.handlers';
import { UserpassEventLog, UserpassProjection } from './userpass.projection';
import { UserpassRepository } from './userpass.repository';
import { UserpassService } from './userpass.service';

export const userpassProviders: Provider[] = [
  UserpassRepository,
  UserpassProjection,
  writerProvider(UserpassEventLog, CORE_SYS_EVENT_STORE, USERPASS_LOG, UserpassProjection),
  UserpassService,
];
export const userpassControllers: Type[] = [UserpassHandlers];
export const userpassMigrations: Record<string, Migration> = {
  '0060_userpass_users': m0060,
};

export { UserpassService } from './userpass.service';
