import { Controller } from '@nestjs/common';
import { sysContracts, type ResponseOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { HaStatusService } from './ha-status.service';

@Controller()
export class HaStatusHandlers {
  constructor(private readonly ha: HaStatusService) {}

  @Handles(sysContracts.haStatus)
  read(): Promise<ResponseOf<typeof sysContracts.haStatus>> {
    return this.ha.status();
  }
}
