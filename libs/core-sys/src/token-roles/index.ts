import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { writerProvider } from '@coffer/event-store';
import * as m0081 from './migrations/0081_token_roles';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { TOKEN_ROLE_LOG } from './token-role.events';
import { TokenRoleHandlers } from './token-role.handlers';
import { TokenRoleEventLog, TokenRoleProjection } from './token-role.projection';
import { TokenRoleRepository } from './token-role.repository';
import { TokenRoleService } from './token-role.service';

export const tokenRolesProviders: Provider[] = [
  TokenRoleRepository,
  TokenRoleProjection,
  writerProvider(TokenRoleEventLog, CORE_SYS_EVENT_STORE, TOKEN_ROLE_LOG, TokenRoleProjection),
  TokenRoleService,
];
export const tokenRolesControllers: Type[] = [TokenRoleHandlers];
export const tokenRolesMigrations: Record<string, Migration> = {
  '0081_token_roles': m0081,
};
