import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import * as m0050 from './migrations/0050_tokens';
import * as m0082 from './migrations/0082_token_role_column';
import * as m0111 from './migrations/0111_token_bound_cidrs';
import { TokenAdminService } from './token-admin.service';
import { TokenCreatedAtHandlers } from './token-created-at.handlers';
import { TokenCreatedAtRepository } from './token-created-at.repository';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { TOKEN_LOG } from './token.events';
import { TokenEventLog, TokenProjection } from './token.projection';
import { TokenInternalHandlers, TokenRouteHandlers } from './token.handlers';
import { TokenRepository } from './token.repository';
import { TokenRevocationService } from './token-revocation.service';
import { TokenSalt } from './token-salt';
import { TokenService } from './token.service';
import { TokenNamespaces } from './token-namespace.service';
import { DEFAULT_TOKEN_SWEEP_SETTINGS, TOKEN_SWEEP_SETTINGS, TokenSweeper } from './token-sweeper';

export const tokensProviders: Provider[] = [
  TokenRepository,
  TokenProjection,
  writerProvider(TokenEventLog, CORE_SYS_EVENT_STORE, TOKEN_LOG, TokenProjection),
  TokenSalt,
  TokenNamespaces,
  TokenService,
  TokenRevocationService,
  TokenAdminService,
  TokenSweeper,
  { provide: TOKEN_SWEEP_SETTINGS, useValue: DEFAULT_TOKEN_SWEEP_SETTINGS },
  TokenCreatedAtRepository,
];
export const tokensControllers: Type[] = [TokenRouteHandlers, TokenInternalHandlers, TokenCreatedAtHandlers];
export const tokensMigrations: Record<string, Migration> = {
  '0050_tokens': m0050,
  '0082_token_role_column': m0082,
  '0111_token_bound_cidrs': m0111,
};

export {
  TokenService,
  RESPONSE_WRAPPING_POLICY,
  invalidToken,
  type IssuedToken,
  type LoginTokenRequest,
} from './token.service';
export { TokenRevocationService, type RevokedTokens } from './token-revocation.service';
export {
  TOKEN_SWEEP_SETTINGS,
  DEFAULT_TOKEN_SWEEP_SETTINGS,
  TokenSweeper,
  type TokenSweepSettings,
} from './token-sweeper';
