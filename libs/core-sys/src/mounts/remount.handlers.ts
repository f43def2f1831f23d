import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { sysContracts, type CallerContext, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { RemountService } from './remount.service';

@Controller()
export class RemountHandlers {
  constructor(private readonly remounts: RemountService) {}

  @Handles(sysContracts.remount)
  remount(
    @Payload() req: RequestOf<typeof sysContracts.remount>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.remount>> {
    return this.remounts.remount(req.body, caller.namespace);
  }

  @Handles(sysContracts.remountStatus)
  status(
    @Payload() req: RequestOf<typeof sysContracts.remountStatus>,
  ): Promise<ResponseOf<typeof sysContracts.remountStatus>> {
    return this.remounts.status(req.params.migration_id);
  }
}
