import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type CallerContext,
  coreEntityFacts,
  identityContracts,
  identityLoginAlias,
  type ContractRequest,
  type ContractResponse,
  type ResponseOf,
  type RequestOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
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

  /** A performance secondary's login, forwarded here: the alias's entity, found or made. */
  @Handles(identityLoginAlias)
  async loginAlias(
    @Payload() req: RequestOf<typeof identityLoginAlias>,
  ): Promise<ResponseOf<typeof identityLoginAlias>> {
    return { data: { entity_id: await this.identity.entityForAlias(req.mount.accessor, req.body.name) } };
  }

  @Handles(identityContracts.entityWrite)
  entityWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityWrite>> {
    return this.entities.write(caller.namespace, req.body, { by: 'body' });
  }

  @Handles(identityContracts.entityByIdRead)
  entityByIdRead(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdRead>> {
    return this.entities.read(caller.namespace, { by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdWrite)
  entityByIdWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdWrite>> {
    return this.entities.write(caller.namespace, req.body, { by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdDelete)
  entityByIdDelete(
    @Payload() req: RequestOf<typeof identityContracts.entityByIdDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdDelete>> {
    return this.entities.delete(caller.namespace, { by: 'id', id: req.params.id });
  }

  @Handles(identityContracts.entityByIdList)
  entityByIdList(
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByIdList>> {
    return this.entities.list(caller.namespace, true);
  }

  @Handles(identityContracts.entityByNameRead)
  entityByNameRead(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameRead>> {
    return this.entities.read(caller.namespace, { by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameWrite)
  entityByNameWrite(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameWrite>> {
    return this.entities.write(caller.namespace, req.body, { by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameDelete)
  entityByNameDelete(
    @Payload() req: RequestOf<typeof identityContracts.entityByNameDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameDelete>> {
    return this.entities.delete(caller.namespace, { by: 'name', name: req.params.name });
  }

  @Handles(identityContracts.entityByNameList)
  entityByNameList(
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.entityByNameList>> {
    return this.entities.list(caller.namespace, false);
  }

  @Handles(identityContracts.aliasWrite)
  aliasWrite(
    @Payload() req: RequestOf<typeof identityContracts.aliasWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.aliasWrite>> {
    return this.aliases.write(caller.namespace, req.body);
  }

  @Handles(identityContracts.aliasByIdRead)
  aliasByIdRead(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdRead>> {
    return this.aliases.read(caller.namespace, req.params.id);
  }

  @Handles(identityContracts.aliasByIdWrite)
  aliasByIdWrite(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdWrite>> {
    return this.aliases.write(caller.namespace, req.body, req.params.id);
  }

  @Handles(identityContracts.aliasByIdDelete)
  aliasByIdDelete(
    @Payload() req: RequestOf<typeof identityContracts.aliasByIdDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdDelete>> {
    return this.aliases.delete(caller.namespace, req.params.id);
  }

  @Handles(identityContracts.aliasByIdList)
  aliasByIdList(
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof identityContracts.aliasByIdList>> {
    return this.aliases.list(caller.namespace);
  }

  @Handles(coreEntityFacts)
  facts(
    @Payload() req: ContractRequest<typeof coreEntityFacts>,
  ): Promise<ContractResponse<typeof coreEntityFacts>> {
    return this.identity.facts(req.entityId);
  }
}
