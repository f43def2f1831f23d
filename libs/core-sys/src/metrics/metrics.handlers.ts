import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { sysContracts, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { MetricsService } from './metrics.service';

@Controller()
export class MetricsHandlers {
  constructor(private readonly metrics: MetricsService) {}

  @Handles(sysContracts.metrics)
  read(
    @Payload() req: RequestOf<typeof sysContracts.metrics>,
  ): Promise<ResponseOf<typeof sysContracts.metrics>> {
    return this.metrics.read(req);
  }
}
