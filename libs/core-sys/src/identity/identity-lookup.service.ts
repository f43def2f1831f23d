import { Injectable } from '@nestjs/common';
import {
  identityLookupContracts,
  invalidRequest,
  type IdentityLookupBody,
  type ResponseOf,
} from '@coffer/contracts';
import { EntityAdminService } from './entity-admin.service';
import { groupByAliasId, groupByName, type GroupState } from './group.decider';
import { GroupAdminService } from './group-admin.service';
import { groupAliases } from './group-alias-admin.service';
import { GroupService } from './group.service';
import type { EntityState } from './identity.decider';
import { IdentityRepository } from './identity.repository';

type Res<K extends keyof typeof identityLookupContracts> = ResponseOf<(typeof identityLookupContracts)[K]>;

/** The one key a lookup names, after Vault's checks of which parameters were given. */
type LookupKey =
  | { by: 'id'; id: string }
  | { by: 'name'; name: string }
  | { by: 'alias_id'; aliasId: string }
  | { by: 'factors'; name: string; mountAccessor: string };

/** Vault's pathLookupEntityUpdate / pathLookupGroupUpdate parameter rules. */
export function lookupKey(body: IdentityLookupBody): LookupKey | undefined {
  const given = [body.id, body.name, body.alias_id, body.alias_name, body.alias_mount_accessor].filter(
    (v) => v !== undefined,
  ).length;
  const aliasName = body.alias_name ?? '';
  const accessor = body.alias_mount_accessor ?? '';
  if (given === 0) throw invalidRequest('query parameter not supplied');
  if (given !== 1 && !(given === 2 && aliasName !== '' && accessor !== '')) {
    throw invalidRequest('query parameter conflict; please supply distinct set of query parameters');
  }
  if (given === 1 && (aliasName !== '' || accessor !== '')) {
    throw invalidRequest("both 'alias_name' and 'alias_mount_accessor' needs to be set");
  }
  if (body.id) return { by: 'id', id: body.id };
  if (body.name) return { by: 'name', name: body.name };
  if (body.alias_id) return { by: 'alias_id', aliasId: body.alias_id };
  if (aliasName && accessor) return { by: 'factors', name: aliasName, mountAccessor: accessor };
  return undefined;
}

/** identity/lookup/entity and identity/lookup/group: the read of what matched, 204 for nothing. */
@Injectable()
export class IdentityLookupService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly entities: EntityAdminService,
    private readonly groups: GroupService,
    private readonly groupAdmin: GroupAdminService,
  ) {}

  async entity(namespace: string, body: IdentityLookupBody): Promise<Res<'lookupEntity'>> {
    const key = lookupKey(body);
    const entity = key && (await this.findEntity(namespace, key));
    return entity ? { data: await this.entities.view(entity) } : {};
  }

  async group(namespace: string, body: IdentityLookupBody): Promise<Res<'lookupGroup'>> {
    const key = lookupKey(body);
    const graph = await this.groups.graph(namespace);
    let group: GroupState | undefined;
    if (key?.by === 'id') group = graph.get(key.id);
    else if (key?.by === 'name') group = groupByName(graph, key.name);
    else if (key?.by === 'alias_id') group = groupByAliasId(graph, key.aliasId);
    else if (key?.by === 'factors') {
      const alias = groupAliases(graph).find(
        (a) => a.mountAccessor === key.mountAccessor && a.name === key.name,
      );
      group = alias && graph.get(alias.groupId);
    }
    return this.groupAdmin.view(namespace, group, graph);
  }

  /** Only the entities of the request's namespace are found. */
  private async findEntity(namespace: string, key: LookupKey): Promise<EntityState | undefined> {
    if (key.by === 'id') return (await this.repo.entityIn(namespace, key.id))?.state;
    if (key.by === 'name') return (await this.repo.entityByName(namespace, key.name))?.state;
    const alias =
      key.by === 'alias_id'
        ? await this.repo.aliasById(namespace, key.aliasId)
        : await this.repo.aliasByFactors(key.mountAccessor, key.name);
    return alias && (await this.repo.entityIn(namespace, alias.canonicalId))?.state;
  }
}
