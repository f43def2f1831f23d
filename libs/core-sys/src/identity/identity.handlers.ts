import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreEntityFacts,
  identityContracts,
  type ContractRequest,
  type ContractResponse,
  type ResponseOf,
  type RequestOf,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { AliasAdminService } from './alias-admin.service';
import { EntityAdminService } from './entity-admin.service';
import { IdentityService } from './identity.service';

/** identity/entity* and identity/entity-alias* routes, plus entity facts for the gateway. */
@Controller()
export class IdentityHandlers {
  constructor(
    private readonly entities: EntityAdminService,
    private readonly aliases: AliasAdminService,
    private readonly identity: IdentityService,
  ) {}

  @Handles(identityContracts.entityWrite)
  entityWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityWrite>,
  ): Promise<ResponseOf<typeof identityContracts.entityWrite>> {
    return this.entities.write(req.body, { by: 'body' });
  }

  @Handles(identityContracts.entityByIdRead)
  entityByIdRead(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdRead>,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdRead>> {
    return this.entities.read({ by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdWrite)
  entityByIdWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdWrite>,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdWrite>> {
    return this.entities.write(req.body, { by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdDelete)
  entityByIdDelete(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdDelete>,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdDelete>> {
    return this.entities.delete({ by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdList)
  entityByIdList(): Promise<ResponseOf<typeof identityContracts.entityByIdList>> {
    return this.entities.list(true);
  }

  @Handles(identityContracts.entityByNameRead)
  entityByNameRead(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameRead>,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameRead>> {
    return this.entities.read({ by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameWrite)
  entityByNameWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameWrite>,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameWrite>> {
    return this.entities.write(req.body, { by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameDelete)
  entityByNameDelete(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameDelete>,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameDelete>> {
    return this.entities.delete({ by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameList)
  entityByNameList(): Promise<ResponseOf<typeof identityContracts.entityByNameList>> {
    return this.entities.list(false);
  }

  @Handles(identityContracts.aliasWrite)
  aliasWrite(
    @Payload() req: RequestOf<typeof identityContracts.aliasWrite>,
  ): Promise<ResponseOf<typeof identityContracts.aliasWrite>> {
    return this.aliases.write(req.body);
  }

  @Handles(identityContracts.aliasByIdRead)
  aliasByIdRead(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdRead>,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdRead>> {
    return this.aliases.read(req.params.id);
  }

  @Handles(identityContracts.aliasByIdWrite)
  aliasByIdWrite(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdWrite>,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdWrite>> {
    return this.aliases.write(req.body, req.params.id);
  }

  @Handles(identityContracts.aliasByIdDelete)
  aliasByIdDelete(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdDelete>,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdDelete>> {
    return this.aliases.delete(req.params.id);
  }

  @Handles(identityContracts.aliasByIdList)
  aliasByIdList(): Promise<ResponseOf<typeof identityContracts.aliasByIdList>> {
    return this.aliases.list();
  }

  @Handles(coreEntityFacts)
  facts(
    @Payload() req: ContractRequest<typeof coreEntityFacts>,
  ): Promise<ContractResponse<typeof coreEntityFacts>> {
    return this.identity.facts(req.entityId);
  }
}
