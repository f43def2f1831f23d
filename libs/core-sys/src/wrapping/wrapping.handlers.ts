import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreWrapResponse,
  wrappingContracts,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { WrappingService } from './wrapping.service';

type C = typeof wrappingContracts;

/** sys/wrapping/* routes and the gateway's internal wrap contract. */
@Controller()
export class WrappingHandlers {
  constructor(private readonly wrapping: WrappingService) {}

  @Handles(coreWrapResponse)
  wrapResponse(
    @Payload() req: ContractRequest<typeof coreWrapResponse>,
  ): Promise<ContractResponse<typeof coreWrapResponse>> {
    return this.wrapping.wrap(req);
  }

  @Handles(wrappingContracts.wrap)
  wrap(@Payload() req: RequestOf<C['wrap']>): ResponseOf<C['wrap']> {
    return this.wrapping.wrapValues(req);
  }

  @Handles(wrappingContracts.unwrap)
  unwrap(@Payload() req: RequestOf<C['unwrap']>): Promise<ResponseOf<C['unwrap']>> {
    return this.wrapping.unwrap(req);
  }

  @Handles(wrappingContracts.lookup)
  lookup(@Payload() req: RequestOf<C['lookup']>): Promise<ResponseOf<C['lookup']>> {
    return this.wrapping.lookup(req);
  }

  @Handles(wrappingContracts.rewrap)
  rewrap(
    @Payload() req: RequestOf<C['rewrap']>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<C['rewrap']>> {
    return this.wrapping.rewrap(req, caller);
  }
}
