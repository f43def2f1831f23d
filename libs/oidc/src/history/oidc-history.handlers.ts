import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineHistoryState,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { OidcHistoryService } from './oidc-history.service';

/** oidc.history.state, asked by core-sys's sys/history/state (no logic). */
@Controller()
export class OidcHistoryHandlers {
  constructor(private readonly history: OidcHistoryService) {}

  @Handles(engineHistoryState('oidc'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.history.state(req);
  }
}
