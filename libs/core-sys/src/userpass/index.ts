import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0060 from './migrations/0060_userpass_users';
import { UserpassEventLog } from './userpass-event-log';
import { UserpassHandlers } from './userpass.handlers';
import { UserpassRepository } from './userpass.repository';
import { UserpassService } from './userpass.service';

export const userpassProviders: Provider[] = [UserpassRepository, UserpassEventLog, UserpassService];
export const userpassControllers: Type[] = [UserpassHandlers];
export const userpassMigrations: Record<string, Migration> = {
  '0060_userpass_users': m0060,
};

export { UserpassService } from './userpass.service';
export { userpassEventTypes } from './userpass-event-log';
