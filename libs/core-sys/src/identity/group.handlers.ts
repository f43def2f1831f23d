import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  identityGroupContracts as g,
  identityLookupContracts as l,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
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
  groupWrite(@Payload() req: RequestOf<typeof g.groupWrite>): Promise<ResponseOf<typeof g.groupWrite>> {
    return this.groups.write(req.body, { by: 'body' });
  }

  @Handles(g.groupByIdRead)
  groupByIdRead(
    @Payload() req: RequestOf<typeof g.groupByIdRead>,
  ): Promise<ResponseOf<typeof g.groupByIdRead>> {
    return this.groups.read({ by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdWrite)
  groupByIdWrite(
    @Payload() req: RequestOf<typeof g.groupByIdWrite>,
  ): Promise<ResponseOf<typeof g.groupByIdWrite>> {
    return this.groups.write(req.body, { by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdDelete)
  groupByIdDelete(
    @Payload() req: RequestOf<typeof g.groupByIdDelete>,
  ): Promise<ResponseOf<typeof g.groupByIdDelete>> {
    return this.groups.delete({ by: 'id', id: req.params.id });
  }

  @Handles(g.groupByIdList)
  groupByIdList(): Promise<ResponseOf<typeof g.groupByIdList>> {
    return this.groups.list(true);
  }

  @Handles(g.groupByNameRead)
  groupByNameRead(
    @Payload() req: RequestOf<typeof g.groupByNameRead>,
  ): Promise<ResponseOf<typeof g.groupByNameRead>> {
    return this.groups.read({ by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameWrite)
  groupByNameWrite(
    @Payload() req: RequestOf<typeof g.groupByNameWrite>,
  ): Promise<ResponseOf<typeof g.groupByNameWrite>> {
    return this.groups.write(req.body, { by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameDelete)
  groupByNameDelete(
    @Payload() req: RequestOf<typeof g.groupByNameDelete>,
  ): Promise<ResponseOf<typeof g.groupByNameDelete>> {
    return this.groups.delete({ by: 'name', name: req.params.name });
  }

  @Handles(g.groupByNameList)
  groupByNameList(): Promise<ResponseOf<typeof g.groupByNameList>> {
    return this.groups.list(false);
  }

  @Handles(g.groupAliasWrite)
  groupAliasWrite(
    @Payload() req: RequestOf<typeof g.groupAliasWrite>,
  ): Promise<ResponseOf<typeof g.groupAliasWrite>> {
    return this.aliases.write(req.body);
  }

  @Handles(g.groupAliasByIdRead)
  groupAliasByIdRead(
    @Payload() req: RequestOf<typeof g.groupAliasByIdRead>,
  ): Promise<ResponseOf<typeof g.groupAliasByIdRead>> {
    return this.aliases.read(req.params.id);
  }

  @Handles(g.groupAliasByIdWrite)
  groupAliasByIdWrite(
    @Payload() req: RequestOf<typeof g.groupAliasByIdWrite>,
  ): Promise<ResponseOf<typeof g.groupAliasByIdWrite>> {
    return this.aliases.write(req.body, req.params.id);
  }

  @Handles(g.groupAliasByIdDelete)
  groupAliasByIdDelete(
    @Payload() req: RequestOf<typeof g.groupAliasByIdDelete>,
  ): Promise<ResponseOf<typeof g.groupAliasByIdDelete>> {
    return this.aliases.delete(req.params.id);
  }

  @Handles(g.groupAliasByIdList)
  groupAliasByIdList(): Promise<ResponseOf<typeof g.groupAliasByIdList>> {
    return this.aliases.list();
  }

  @Handles(l.lookupEntity)
  lookupEntity(@Payload() req: RequestOf<typeof l.lookupEntity>): Promise<ResponseOf<typeof l.lookupEntity>> {
    return this.lookup.entity(req.body);
  }

  @Handles(l.lookupGroup)
  lookupGroup(@Payload() req: RequestOf<typeof l.lookupGroup>): Promise<ResponseOf<typeof l.lookupGroup>> {
    return this.lookup.group(req.body);
  }

  @Handles(l.entityMerge)
  entityMerge(@Payload() req: RequestOf<typeof l.entityMerge>): Promise<ResponseOf<typeof l.entityMerge>> {
    return this.merges.merge(req.body);
  }

  @Handles(l.entityBatchDelete)
  entityBatchDelete(
    @Payload() req: RequestOf<typeof l.entityBatchDelete>,
  ): Promise<ResponseOf<typeof l.entityBatchDelete>> {
    return this.entities.batchDelete(req.body.entity_ids);
  }
}
