import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  corePolicyTexts,
  sysContracts,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { PolicyService } from './policy.service';

@Controller()
export class PolicyHandlers {
  constructor(private readonly policies: PolicyService) {}

  @Handles(sysContracts.policiesList)
  list(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.policiesList>> {
    return this.policies.list(caller.namespace);
  }

  @Handles(sysContracts.policyRead)
  read(
    @Payload() req: RequestOf<typeof sysContracts.policyRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.policyRead>> {
    return this.policies.read(req.params.name, caller.namespace);
  }

  @Handles(sysContracts.policyWrite)
  write(
    @Payload() req: RequestOf<typeof sysContracts.policyWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.policyWrite>> {
    return this.policies.write(req.params.name, req.body, false, caller.namespace);
  }

  @Handles(sysContracts.policyDelete)
  delete(
    @Payload() req: RequestOf<typeof sysContracts.policyDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.policyDelete>> {
    return this.policies.delete(req.params.name, false, caller.namespace);
  }

  @Handles(sysContracts.policyExists)
  exists(
    @Payload() req: RequestOf<typeof sysContracts.policyExists>,
    @Caller() caller: CallerContext,
  ): Promise<{ exists: boolean }> {
    return this.policies.exists(req.params['name'] ?? '', caller.namespace);
  }

  @Handles(sysContracts.legacyPoliciesList)
  legacyList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.legacyPoliciesList>> {
    return this.policies.legacyList(caller.namespace);
  }

  @Handles(sysContracts.legacyPolicyRead)
  legacyRead(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyRead>> {
    return this.policies.legacyRead(req.params.name, caller.namespace);
  }

  @Handles(sysContracts.legacyPolicyWrite)
  legacyWrite(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyWrite>> {
    return this.policies.write(req.params.name, req.body, true, caller.namespace);
  }

  @Handles(sysContracts.legacyPolicyDelete)
  legacyDelete(
    @Payload() req: RequestOf<typeof sysContracts.legacyPolicyDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyDelete>> {
    return this.policies.delete(req.params.name, true, caller.namespace);
  }

  @Handles(corePolicyTexts)
  texts(@Payload() req: { names: string[] }): Promise<{ policies: { name: string; text: string }[] }> {
    return this.policies.texts(req.names);
  }
}
