import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { coreSealState, sysContracts, type EngineResponse, type RequestOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { SealService } from './seal.service';

/**
 * Seal routes every replica answers from its own state. init, unseal, seal, rotate and
 * seal-status are leader-only and served by SealCoordinator.
 */
@Controller()
export class SealHandlers {
  constructor(private readonly seal: SealService) {}

  @Handles(sysContracts.initStatus)
  initStatus(): Promise<EngineResponse> {
    return this.seal.initStatus();
  }

  @Handles(sysContracts.health)
  health(@Payload() req: RequestOf<typeof sysContracts.health>): Promise<EngineResponse> {
    return this.seal.health(req.query);
  }

  @Handles(sysContracts.keyStatus)
  keyStatus(): EngineResponse {
    return this.seal.keyStatus();
  }

  @Handles(coreSealState)
  state(): Promise<{ initialized: boolean; sealed: boolean }> {
    return this.seal.state();
  }
}
