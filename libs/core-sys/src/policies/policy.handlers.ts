import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { corePolicyTexts, sysContracts, type EngineRequest, type EngineResponse } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { PolicyService } from './policy.service';

const nameOf = (req: EngineRequest): string => req.params['name'] ?? '';

@Controller()
export class PolicyHandlers {
  constructor(private readonly policies: PolicyService) {}

  @Handles(sysContracts.policiesList)
  list(): Promise<EngineResponse> {
    return this.policies.list(false);
  }

  @Handles(sysContracts.policyRead)
  read(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.read(nameOf(req), false);
  }

  @Handles(sysContracts.policyWrite)
  write(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.write(nameOf(req), req.body, false);
  }

  @Handles(sysContracts.policyDelete)
  delete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.delete(nameOf(req), false);
  }

  @Handles(sysContracts.policyExists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.policies.exists(nameOf(req));
  }

  @Handles(sysContracts.legacyPoliciesList)
  legacyList(): Promise<EngineResponse> {
    return this.policies.list(true);
  }

  @Handles(sysContracts.legacyPolicyRead)
  legacyRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.read(nameOf(req), true);
  }

  @Handles(sysContracts.legacyPolicyWrite)
  legacyWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.write(nameOf(req), req.body, true);
  }

  @Handles(sysContracts.legacyPolicyDelete)
  legacyDelete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.policies.delete(nameOf(req), true);
  }

  @Handles(corePolicyTexts)
  texts(@Payload() req: { names: string[] }): Promise<{ policies: { name: string; text: string }[] }> {
    return this.policies.texts(req.names);
  }
}
