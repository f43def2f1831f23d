import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { corePolicyTexts, sysContracts, type EngineResponse, type RequestOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { PolicyService } from './policy.service';

@Controller()
export class PolicyHandlers {
  constructor(private readonly policies: PolicyService) {}

  @Handles(sysContracts.policiesList)
  list(): Promise<EngineResponse> {
    return this.policies.list(false);
  }

  @Handles(sysContracts.policyRead)
  read(@Payload() req: RequestOf<typeof sysContracts.policyRead>): Promise<EngineResponse> {
    return this.policies.read(req.params.name, false);
  }

  @Handles(sysContracts.policyWrite)
  write(@Payload() req: RequestOf<typeof sysContracts.policyWrite>): Promise<EngineResponse> {
    return this.policies.write(req.params.name, req.body, false);
  }

  @Handles(sysContracts.policyDelete)
  delete(@Payload() req: RequestOf<typeof sysContracts.policyDelete>): Promise<EngineResponse> {
    return this.policies.delete(req.params.name, false);
  }

  @Handles(sysContracts.policyExists)
  exists(@Payload() req: RequestOf<typeof sysContracts.policyExists>): Promise<{ exists: boolean }> {
    return this.policies.exists(req.params['name'] ?? '');
  }

  @Handles(sysContracts.legacyPoliciesList)
  legacyList(): Promise<EngineResponse> {
    return this.policies.list(true);
  }

  @Handles(sysContracts.legacyPolicyRead)
  legacyRead(@Payload() req: RequestOf<typeof sysContracts.legacyPolicyRead>): Promise<EngineResponse> {
    return this.policies.read(req.params.name, true);
  }

  @Handles(sysContracts.legacyPolicyWrite)
  legacyWrite(@Payload() req: RequestOf<typeof sysContracts.legacyPolicyWrite>): Promise<EngineResponse> {
    return this.policies.write(req.params.name, req.body, true);
  }

  @Handles(sysContracts.legacyPolicyDelete)
  legacyDelete(@Payload() req: RequestOf<typeof sysContracts.legacyPolicyDelete>): Promise<EngineResponse> {
    return this.policies.delete(req.params.name, true);
  }

  @Handles(corePolicyTexts)
  texts(@Payload() req: { names: string[] }): Promise<{ policies: { name: string; text: string }[] }> {
    return this.policies.texts(req.names);
  }
}
