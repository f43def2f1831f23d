import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  tokenContracts,
  type CallerContext,
  type ContractRequest,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { TokenRoleService } from './token-role.service';

/** auth/token/roles/* and auth/token/create/:role. */
@Controller()
export class TokenRoleHandlers {
  constructor(private readonly roles: TokenRoleService) {}

  @Handles(tokenContracts.roleExists)
  exists(@Payload() req: ContractRequest<typeof tokenContracts.roleExists>): Promise<{ exists: boolean }> {
    return this.roles.exists(req);
  }

  @Handles(tokenContracts.roleList)
  list(): Promise<ResponseOf<typeof tokenContracts.roleList>> {
    return this.roles.list();
  }

  @Handles(tokenContracts.roleRead)
  read(
    @Payload() req: RequestOf<typeof tokenContracts.roleRead>,
  ): Promise<ResponseOf<typeof tokenContracts.roleRead>> {
    return this.roles.read(req);
  }

  @Handles(tokenContracts.roleWrite)
  write(
    @Payload() req: RequestOf<typeof tokenContracts.roleWrite>,
  ): Promise<ResponseOf<typeof tokenContracts.roleWrite>> {
    return this.roles.write(req);
  }

  @Handles(tokenContracts.roleDelete)
  delete(
    @Payload() req: RequestOf<typeof tokenContracts.roleDelete>,
  ): Promise<ResponseOf<typeof tokenContracts.roleDelete>> {
    return this.roles.delete(req);
  }

  @Handles(tokenContracts.createWithRole)
  create(
    @Payload() req: RequestOf<typeof tokenContracts.createWithRole>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof tokenContracts.createWithRole>> {
    return this.roles.createToken(req, caller);
  }
}
