import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { coreSealState, sysContracts, type RequestOf, type ResponseOf } from '@coffer/contracts';
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
  initStatus(): Promise<ResponseOf<typeof sysContracts.initStatus>> {
    return this.seal.initStatus();
  }

  @Handles(sysContracts.health)
  health(
    @Payload() req: RequestOf<typeof sysContracts.health>,
  ): Promise<ResponseOf<typeof sysContracts.health>> {
    return this.seal.health(req.query);
  }

  @Handles(sysContracts.keyStatus)
  keyStatus(): ResponseOf<typeof sysContracts.keyStatus> {
    return this.seal.keyStatus();
  }

  @Handles(coreSealState)
  state(): Promise<{ initialized: boolean; sealed: boolean }> {
    return this.seal.state();
  }
}
