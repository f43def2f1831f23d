import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreSentinelPolicies,
  coreSentinelTokenFacts,
  sysContracts,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { SentinelPolicyService } from './sentinel-policy.service';
import { SentinelTokenFactsRepository } from './sentinel-token-facts.repository';

const c = sysContracts;

@Controller()
export class SentinelPolicyHandlers {
  constructor(
    private readonly policies: SentinelPolicyService,
    private readonly tokens: SentinelTokenFactsRepository,
  ) {}

  @Handles(c.rgpList)
  rgpList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof c.rgpList>> {
    return this.policies.listRgp(caller.namespace);
  }

  @Handles(c.rgpRead)
  rgpRead(
    @Payload() req: RequestOf<typeof c.rgpRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.rgpRead>> {
    return this.policies.readRgp(caller.namespace, req.params.name);
  }

  @Handles(c.rgpWrite)
  rgpWrite(
    @Payload() req: RequestOf<typeof c.rgpWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.rgpWrite>> {
    return this.policies.write('rgp', caller.namespace, req.params.name, req.body);
  }

  @Handles(c.rgpDelete)
  rgpDelete(
    @Payload() req: RequestOf<typeof c.rgpDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.rgpDelete>> {
    return this.policies.delete('rgp', caller.namespace, req.params.name);
  }

  @Handles(c.rgpExists)
  rgpExists(
    @Payload() req: RequestOf<typeof c.rgpExists>,
    @Caller() caller: CallerContext,
  ): Promise<{ exists: boolean }> {
    return this.policies.exists('rgp', caller.namespace, req.params['name'] ?? '');
  }

  @Handles(c.egpList)
  egpList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof c.egpList>> {
    return this.policies.listEgp(caller.namespace);
  }

  @Handles(c.egpRead)
  egpRead(
    @Payload() req: RequestOf<typeof c.egpRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.egpRead>> {
    return this.policies.readEgp(caller.namespace, req.params.name);
  }

  @Handles(c.egpWrite)
  egpWrite(
    @Payload() req: RequestOf<typeof c.egpWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.egpWrite>> {
    return this.policies.write('egp', caller.namespace, req.params.name, req.body);
  }

  @Handles(c.egpDelete)
  egpDelete(
    @Payload() req: RequestOf<typeof c.egpDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.egpDelete>> {
    return this.policies.delete('egp', caller.namespace, req.params.name);
  }

  @Handles(c.egpExists)
  egpExists(
    @Payload() req: RequestOf<typeof c.egpExists>,
    @Caller() caller: CallerContext,
  ): Promise<{ exists: boolean }> {
    return this.policies.exists('egp', caller.namespace, req.params['name'] ?? '');
  }

  @Handles(coreSentinelPolicies)
  all(): Promise<ContractResponse<typeof coreSentinelPolicies>> {
    return this.policies.all();
  }

  @Handles(coreSentinelTokenFacts)
  async tokenFacts(
    @Payload() req: ContractRequest<typeof coreSentinelTokenFacts>,
  ): Promise<ContractResponse<typeof coreSentinelTokenFacts>> {
    return this.tokens.byRef(req.tokenRef);
  }
}
