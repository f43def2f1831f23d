import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { corePolicyTexts, sysContracts, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { PolicyService } from './policy.service';

@Controller()
export class PolicyHandlers {
  constructor(private readonly policies: PolicyService) {}

  @Handles(sysContracts.policiesList)
  list(): Promise<ResponseOf<typeof sysContracts.policiesList>> {
    return this.policies.list();
  }

  @Handles(sysContracts.policyRead)
  read(
    @Payload() req: RequestOf<typeof sysContracts.policyRead>,
  ): Promise<ResponseOf<typeof sysContracts.policyRead>> {
    return this.policies.read(req.params.name);
  }

  @Handles(sysContracts.policyWrite)
  write(
    @Payload() req: RequestOf<typeof sysContracts.policyWrite>,
  ): Promise<ResponseOf<typeof sysContracts.policyWrite>> {
    return this.policies.write(req.params.name, req.body, false);
  }

  @Handles(sysContracts.policyDelete)
  delete(
    @Payload() req: RequestOf<typeof sysContracts.policyDelete>,
  ): Promise<ResponseOf<typeof sysContracts.policyDelete>> {
    return this.policies.delete(req.params.name, false);
  }

  @Handles(sysContracts.policyExists)
  exists(@Payload() req: RequestOf<typeof sysContracts.policyExists>): Promise<{ exists: boolean }> {
    return this.policies.exists(req.params['name'] ?? '');
  }

  @Handles(sysContracts.legacyPoliciesList)
  legacyList(): Promise<ResponseOf<typeof sysContracts.legacyPoliciesList>> {
    return this.policies.legacyList();
  }

  @Handles(sysContracts.legacyPolicyRead)
  legacyRead(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyRead>,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyRead>> {
    return this.policies.legacyRead(req.params.name);
  }

  @Handles(sysContracts.legacyPolicyWrite)
  legacyWrite(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyWrite>,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyWrite>> {
    return this.policies.write(req.params.name, req.body, true);
  }

  @Handles(sysContracts.legacyPolicyDelete)
  legacyDelete(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyDelete>,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyDelete>> {
    return this.policies.delete(req.params.name, true);
  }

  @Handles(corePolicyTexts)
  texts(@Payload() req: { names: string[] }): Promise<{ policies: { name: string; text: string }[] }> {
    return this.policies.texts(req.names);
  }
}
