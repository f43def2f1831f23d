import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreTokenAlive,
  coreTokenResolve,
  tokenContracts,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type EngineResponse,
  type RequestOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { TokenAdminService } from './token-admin.service';
import { TokenService } from './token.service';

/** auth/token/* routes. */
@Controller()
export class TokenRouteHandlers {
  constructor(private readonly admin: TokenAdminService) {}

  @Handles(tokenContracts.create)
  create(
    @Payload() req: RequestOf<typeof tokenContracts.create>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.admin.create(req, caller, false);
  }

  @Handles(tokenContracts.createOrphan)
  createOrphan(
    @Payload() req: RequestOf<typeof tokenContracts.createOrphan>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.admin.create(req, caller, true);
  }

  @Handles(tokenContracts.lookup)
  lookup(
    @Payload() req: RequestOf<typeof tokenContracts.lookup>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.admin.lookup(req, caller);
  }

  @Handles(tokenContracts.lookupSelf)
  lookupSelf(
    @Payload() req: RequestOf<typeof tokenContracts.lookupSelf>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.admin.lookupSelf(req, caller);
  }

  @Handles(tokenContracts.lookupAccessor)
  lookupAccessor(@Payload() req: RequestOf<typeof tokenContracts.lookupAccessor>): Promise<EngineResponse> {
    return this.admin.lookupAccessor(req);
  }

  @Handles(tokenContracts.renew)
  renew(@Payload() req: RequestOf<typeof tokenContracts.renew>): Promise<EngineResponse> {
    return this.admin.renew(req);
  }

  @Handles(tokenContracts.renewSelf)
  renewSelf(
    @Payload() req: RequestOf<typeof tokenContracts.renewSelf>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.admin.renewSelf(req, caller);
  }

  @Handles(tokenContracts.renewAccessor)
  renewAccessor(@Payload() req: RequestOf<typeof tokenContracts.renewAccessor>): Promise<EngineResponse> {
    return this.admin.renewAccessor(req);
  }

  @Handles(tokenContracts.revoke)
  revoke(@Payload() req: RequestOf<typeof tokenContracts.revoke>): Promise<EngineResponse> {
    return this.admin.revoke(req);
  }

  @Handles(tokenContracts.revokeSelf)
  revokeSelf(@Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.admin.revokeSelf(caller);
  }

  @Handles(tokenContracts.revokeAccessor)
  revokeAccessor(@Payload() req: RequestOf<typeof tokenContracts.revokeAccessor>): Promise<EngineResponse> {
    return this.admin.revokeAccessor(req);
  }

  @Handles(tokenContracts.revokeOrphan)
  revokeOrphan(@Payload() req: RequestOf<typeof tokenContracts.revokeOrphan>): Promise<EngineResponse> {
    return this.admin.revokeOrphan(req);
  }

  @Handles(tokenContracts.listAccessors)
  listAccessors(): Promise<EngineResponse> {
    return this.admin.listAccessors();
  }
}

/** Internal contracts for the gateway and the engines. */
@Controller()
export class TokenInternalHandlers {
  constructor(private readonly tokens: TokenService) {}

  @Handles(coreTokenResolve)
  resolve(
    @Payload() req: ContractRequest<typeof coreTokenResolve>,
  ): Promise<ContractResponse<typeof coreTokenResolve>> {
    return this.tokens.resolve(req.token);
  }

  @Handles(coreTokenAlive)
  async alive(
    @Payload() req: ContractRequest<typeof coreTokenAlive>,
  ): Promise<ContractResponse<typeof coreTokenAlive>> {
    return { alive: await this.tokens.alive(req.tokenRefs) };
  }
}
