import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { sysContracts, type CallerContext, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { CapabilitiesService } from './capabilities.service';

@Controller()
export class CapabilitiesHandlers {
  constructor(private readonly capabilities: CapabilitiesService) {}

  @Handles(sysContracts.capabilitiesSelf)
  self(
    @Payload() req: RequestOf<typeof sysContracts.capabilitiesSelf>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.capabilitiesSelf>> {
    return this.capabilities.self(req.body, caller);
  }

  @Handles(sysContracts.capabilitiesToken)
  ofToken(
    @Payload() req: RequestOf<typeof sysContracts.capabilitiesToken>,
  ): Promise<ResponseOf<typeof sysContracts.capabilitiesToken>> {
    return this.capabilities.ofToken(req.body);
  }

  @Handles(sysContracts.capabilitiesAccessor)
  ofAccessor(
    @Payload() req: RequestOf<typeof sysContracts.capabilitiesAccessor>,
  ): Promise<ResponseOf<typeof sysContracts.capabilitiesAccessor>> {
    return this.capabilities.ofAccessor(req.body);
  }

  @Handles(sysContracts.resultantAcl)
  resultantAcl(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.resultantAcl>> {
    return this.capabilities.resultantAcl(caller);
  }
}
