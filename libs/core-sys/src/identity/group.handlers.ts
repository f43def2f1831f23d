import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type CallerContext,
  identityGroupContracts as g,
  identityLookupContracts as l,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { EntityAdminService } from './entity-admin.service';
import { EntityMergeService } from './entity-merge.service';
import { GroupAdminService } from './group-admin.service';
import { GroupAliasAdminService } from './group-alias-admin.service';
import { IdentityLookupService } from './identity-lookup.service';

/** identity/group*, identity/group-alias*, identity/lookup/*, entity merge and batch-delete. */
@Controller()
export class GroupHandlers {
  constructor(
    private readonly groups: GroupAdminService,
    private readonly aliases: GroupAliasAdminService,
    private readonly lookup: IdentityLookupService,
    private readonly merges: EntityMergeService,
    private readonly entities: EntityAdminService,
  ) {}

  @Handles(g.groupWrite)
  groupWrite(
    @Payload() req: RequestOf<typeof g.groupWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupWrite>> {
    return this.groups.write(caller.namespace, req.body, { by: 'body' });
  }

  @Handles(g.groupByIdRead)
  groupByIdRead(
    @Payload() req: RequestOf<typeof g.groupByIdRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByIdRead>> {
    return this.groups.read(caller.namespace, { by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdWrite)
  groupByIdWrite(
    @Payload() req: RequestOf<typeof g.groupByIdWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByIdWrite>> {
    return this.groups.write(caller.namespace, req.body, { by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdDelete)
  groupByIdDelete(
    @Payload() req: RequestOf<typeof g.groupByIdDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByIdDelete>> {
    return this.groups.delete(caller.namespace, { by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdList)
  groupByIdList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof g.groupByIdList>> {
    return this.groups.list(caller.namespace, true);
  }

  @Handles(g.groupByNameRead)
  groupByNameRead(
    @Payload() req: RequestOf<typeof g.groupByNameRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByNameRead>> {
    return this.groups.read(caller.namespace, { by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameWrite)
  groupByNameWrite(
    @Payload() req: RequestOf<typeof g.groupByNameWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByNameWrite>> {
    return this.groups.write(caller.namespace, req.body, { by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameDelete)
  groupByNameDelete(
    @Payload() req: RequestOf<typeof g.groupByNameDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupByNameDelete>> {
    return this.groups.delete(caller.namespace, { by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameList)
  groupByNameList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof g.groupByNameList>> {
    return this.groups.list(caller.namespace, false);
  }

  @Handles(g.groupAliasWrite)
  groupAliasWrite(
    @Payload() req: RequestOf<typeof g.groupAliasWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupAliasWrite>> {
    return this.aliases.write(caller.namespace, req.body);
  }

  @Handles(g.groupAliasByIdRead)
  groupAliasByIdRead(
    @Payload() req: RequestOf<typeof g.groupAliasByIdRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupAliasByIdRead>> {
    return this.aliases.read(caller.namespace, req.params.id);
  }

  @Handles(g.groupAliasByIdWrite)
  groupAliasByIdWrite(
    @Payload() req: RequestOf<typeof g.groupAliasByIdWrite>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupAliasByIdWrite>> {
    return this.aliases.write(caller.namespace, req.body, req.params.id);
  }

  @Handles(g.groupAliasByIdDelete)
  groupAliasByIdDelete(
    @Payload() req: RequestOf<typeof g.groupAliasByIdDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof g.groupAliasByIdDelete>> {
    return this.aliases.delete(caller.namespace, req.params.id);
  }

  @Handles(g.groupAliasByIdList)
  groupAliasByIdList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof g.groupAliasByIdList>> {
    return this.aliases.list(caller.namespace);
  }

  @Handles(l.lookupEntity)
  lookupEntity(
    @Payload() req: RequestOf<typeof l.lookupEntity>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof l.lookupEntity>> {
    return this.lookup.entity(caller.namespace, req.body);
  }

  @Handles(l.lookupGroup)
  lookupGroup(
    @Payload() req: RequestOf<typeof l.lookupGroup>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof l.lookupGroup>> {
    return this.lookup.group(caller.namespace, req.body);
  }

  @Handles(l.entityMerge)
  entityMerge(
    @Payload() req: RequestOf<typeof l.entityMerge>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof l.entityMerge>> {
    return this.merges.merge(caller.namespace, req.body);
  }

  @Handles(l.entityBatchDelete)
  entityBatchDelete(
    @Payload() req: RequestOf<typeof l.entityBatchDelete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof l.entityBatchDelete>> {
    return this.entities.batchDelete(caller.namespace, req.body.entity_ids);
  }
}
