import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { sysContracts, type CallerContext, type EngineRequest, type EngineResponse } from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { CapabilitiesService } from './capabilities.service';

@Controller()
export class CapabilitiesHandlers {
  constructor(private readonly capabilities: CapabilitiesService) {}

  @Handles(sysContracts.capabilitiesSelf)
  self(@Payload() req: EngineRequest, @Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.capabilities.self(req, caller);
  }

  @Handles(sysContracts.capabilitiesToken)
  ofToken(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.capabilities.ofToken(req);
  }

  @Handles(sysContracts.capabilitiesAccessor)
  ofAccessor(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.capabilities.ofAccessor(req);
  }

  @Handles(sysContracts.resultantAcl)
  resultantAcl(@Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.capabilities.resultantAcl(caller);
  }
}
