import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { coreTokenCreatedAt, type ContractRequest, type ContractResponse } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { TokenCreatedAtRepository } from './token-created-at.repository';

/** coreTokenCreatedAt: the creation time of a live token (the OIDC provider's auth_time). */
@Controller()
export class TokenCreatedAtHandlers {
  constructor(private readonly tokens: TokenCreatedAtRepository) {}

  @Handles(coreTokenCreatedAt)
  async createdAt(
    @Payload() req: ContractRequest<typeof coreTokenCreatedAt>,
  ): Promise<ContractResponse<typeof coreTokenCreatedAt>> {
    return { createdAt: await this.tokens.createdAt(req.tokenRef) };
  }
}
