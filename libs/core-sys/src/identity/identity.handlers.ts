import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreEntityFacts,
  identityContracts,
  type ContractRequest,
  type ContractResponse,
  type EngineRequest,
  type EngineResponse,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { AliasAdminService } from './alias-admin.service';
import { EntityAdminService } from './entity-admin.service';
import { IdentityService } from './identity.service';

const param = (req: EngineRequest, name: string): string => req.params[name] ?? '';

/** identity/entity* and identity/entity-alias* routes, plus entity facts for the gateway. */
@Controller()
export class IdentityHandlers {
  constructor(
    private readonly entities: EntityAdminService,
    private readonly aliases: AliasAdminService,
    private readonly identity: IdentityService,
  ) {}

  @Handles(identityContracts.entityWrite)
  entityWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.write(req, { by: 'body' });
  }

  @Handles(identityContracts.entityByIdRead)
  entityByIdRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.read({ by: 'id', id: param(req, 'id') });
  }

  @Handles(identityContracts.entityByIdWrite)
  entityByIdWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.write(req, { by: 'id', id: param(req, 'id') });
  }

  @Handles(identityContracts.entityByIdDelete)
  entityByIdDelete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.delete({ by: 'id', id: param(req, 'id') });
  }

  @Handles(identityContracts.entityByIdList)
  entityByIdList(): Promise<EngineResponse> {
    return this.entities.list(true);
  }

  @Handles(identityContracts.entityByNameRead)
  entityByNameRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.read({ by: 'name', name: param(req, 'name') });
  }

  @Handles(identityContracts.entityByNameWrite)
  entityByNameWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.write(req, { by: 'name', name: param(req, 'name') });
  }

  @Handles(identityContracts.entityByNameDelete)
  entityByNameDelete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.entities.delete({ by: 'name', name: param(req, 'name') });
  }

  @Handles(identityContracts.entityByNameList)
  entityByNameList(): Promise<EngineResponse> {
    return this.entities.list(false);
  }

  @Handles(identityContracts.aliasWrite)
  aliasWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.aliases.write(req);
  }

  @Handles(identityContracts.aliasByIdRead)
  aliasByIdRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.aliases.read(param(req, 'id'));
  }

  @Handles(identityContracts.aliasByIdWrite)
  aliasByIdWrite(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.aliases.write(req, param(req, 'id'));
  }

  @Handles(identityContracts.aliasByIdDelete)
  aliasByIdDelete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.aliases.delete(param(req, 'id'));
  }

  @Handles(identityContracts.aliasByIdList)
  aliasByIdList(): Promise<EngineResponse> {
    return this.aliases.list();
  }

  @Handles(coreEntityFacts)
  facts(
    @Payload() req: ContractRequest<typeof coreEntityFacts>,
  ): Promise<ContractResponse<typeof coreEntityFacts>> {
    return this.identity.facts(req.entityId);
  }
}
