import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreTokenAlive,
  coreTokenResolve,
  tokenContracts,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type ResponseOf,
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
  ): Promise<ResponseOf<typeof tokenContracts.create>> {
    return this.admin.create(req, caller, false);
  }

  @Handles(tokenContracts.createOrphan)
  createOrphan(
    @Payload() req: RequestOf<typeof tokenContracts.createOrphan>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof tokenContracts.createOrphan>> {
    return this.admin.create(req, caller, true);
  }

  @Handles(tokenContracts.lookup)
  lookup(
    @Payload() req: RequestOf<typeof tokenContracts.lookup>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof tokenContracts.lookup>> {
    return this.admin.lookup(req, caller);
  }

  @Handles(tokenContracts.lookupSelf)
  lookupSelf(
    @Payload() req: RequestOf<typeof tokenContracts.lookupSelf>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof tokenContracts.lookupSelf>> {
    return this.admin.lookupSelf(req, caller);
  }

  @Handles(tokenContracts.lookupAccessor)
  lookupAccessor(
    @Payload() req: RequestOf<typeof tokenContracts.lookupAccessor>,
  ): Promise<ResponseOf<typeof tokenContracts.lookupAccessor>> {
    return this.admin.lookupAccessor(req);
  }

  @Handles(tokenContracts.renew)
  renew(
    @Payload() req: RequestOf<typeof tokenContracts.renew>,
  ): Promise<ResponseOf<typeof tokenContracts.renew>> {
    return this.admin.renew(req);
  }

  @Handles(tokenContracts.renewSelf)
  renewSelf(
    @Payload() req: RequestOf<typeof tokenContracts.renewSelf>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof tokenContracts.renewSelf>> {
    return this.admin.renewSelf(req, caller);
  }

  @Handles(tokenContracts.renewAccessor)
  renewAccessor(
    @Payload() req: RequestOf<typeof tokenContracts.renewAccessor>,
  ): Promise<ResponseOf<typeof tokenContracts.renewAccessor>> {
    return this.admin.renewAccessor(req);
  }

  @Handles(tokenContracts.revoke)
  revoke(
    @Payload() req: RequestOf<typeof tokenContracts.revoke>,
  ): Promise<ResponseOf<typeof tokenContracts.revoke>> {
    return this.admin.revoke(req);
  }

  @Handles(tokenContracts.revokeSelf)
  revokeSelf(@Caller() caller: CallerContext): Promise<ResponseOf<typeof tokenContracts.revokeSelf>> {
    return this.admin.revokeSelf(caller);
  }

  @Handles(tokenContracts.revokeAccessor)
  revokeAccessor(
    @Payload() req: RequestOf<typeof tokenContracts.revokeAccessor>,
  ): Promise<ResponseOf<typeof tokenContracts.revokeAccessor>> {
    return this.admin.revokeAccessor(req);
  }

  @Handles(tokenContracts.revokeOrphan)
  revokeOrphan(
    @Payload() req: RequestOf<typeof tokenContracts.revokeOrphan>,
  ): Promise<ResponseOf<typeof tokenContracts.revokeOrphan>> {
    return this.admin.revokeOrphan(req);
  }

  @Handles(tokenContracts.tidy)
  tidy(): Promise<ResponseOf<typeof tokenContracts.tidy>> {
    return this.admin.tidy();
  }

  @Handles(tokenContracts.listAccessors)
  listAccessors(@Caller() caller: CallerContext): Promise<ResponseOf<typeof tokenContracts.listAccessors>> {
    return this.admin.listAccessors(caller.namespace);
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
