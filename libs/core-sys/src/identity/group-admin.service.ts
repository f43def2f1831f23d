import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  identityGroupContracts,
  invalidRequest,
  notFound,
  type IdentityGroupBody,
  type ResponseOf,
} from '@coffer/contracts';
import { MountsService } from '../mounts/mounts.service';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import {
  decideGroupWrite,
  groupByName,
  type GroupGraph,
  type GroupInput,
  type GroupState,
} from './group.decider';
import { GroupService } from './group.service';
import { groupList, groupView } from './group.view';
import { IdentityRepository } from './identity.repository';
import { lookupMounts, type MountLookup } from './identity.view';

/** Where the group of a request is named: the body, the id path or the name path. */
export type GroupRef = { by: 'body' } | { by: 'id'; id: string } | { by: 'name'; name: string };

type Res<K extends keyof typeof identityGroupContracts> = ResponseOf<(typeof identityGroupContracts)[K]>;

/** identity/group* routes (Vault's identity_store_groups.go). */
@Injectable()
export class GroupAdminService {
  constructor(
    private readonly groups: GroupService,
    private readonly entities: IdentityRepository,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
    @Inject(NamespaceRepository) private readonly namespaces: Pick<NamespaceRepository, 'idOf'>,
  ) {}

  /** Create (200 {id, name}) or update (204). */
  async write(namespace: string, body: IdentityGroupBody, ref: GroupRef): Promise<Res<'groupWrite'>> {
    const input = groupInputOf(body);
    let id = body.id;
    if (ref.by === 'id') id = ref.id;
    if (ref.by === 'name') {
      // Vault's pathGroupNameUpdate: the path's name picks the group, a body id plays no part.
      input.name = ref.name;
      id = undefined;
    }
    if (ref.by === 'name' && !input.name) throw invalidRequest('empty group name');
    // Vault lets a group hold entities of any namespace; their tokens get the group's policies
    // only in the group's namespace and below (IdentityService.standing). Member groups stay in
    // the group's own namespace: they share its group graph.
    const existingEntities = await this.entities.existingEntityIds(input.memberEntityIds ?? []);

    const decision = await this.groups.write(namespace, (graph) => {
      let group: GroupState | null = null;
      if (id !== undefined) {
        if (id === '') throw invalidRequest('empty group ID');
        group = graph.get(id) ?? null;
        if (!group) throw invalidRequest('invalid group ID');
      } else if (input.name) {
        group = groupByName(graph, input.name) ?? null;
      }
      const d = decideGroupWrite({
        graph,
        group,
        input,
        existingEntities,
        newId: randomUUID(),
        generatedName: this.groups.freshName(graph),
        nowMs: this.groups.now(),
      });
      return { events: d.events, result: d };
    });
    if (!decision.created) return {};
    return { data: { id: decision.group.id, name: decision.group.name } };
  }

  async read(namespace: string, ref: GroupRef): Promise<Res<'groupByIdRead'>> {
    if (ref.by === 'id' && !ref.id) throw invalidRequest('empty group id');
    if (ref.by === 'name' && !ref.name) throw invalidRequest('empty group name');
    const graph = await this.groups.graph(namespace);
    const group = find(graph, ref);
    if (!group) throw notFound();
    return this.view(namespace, group, graph);
  }

  /** The answer of a group lookup: the group as read, or 204 when none. */
  async view(
    namespace: string,
    group: GroupState | undefined,
    graph: GroupGraph,
  ): Promise<{ data?: Res<'groupByIdRead'>['data'] }> {
    if (!group) return {};
    const namespaceId = namespace === '' ? 'root' : await this.namespaces.idOf(namespace);
    return { data: groupView(group, graph, await this.mountLookup([group]), namespaceId) };
  }

  async delete(namespace: string, ref: GroupRef): Promise<Res<'groupByIdDelete'>> {
    if (ref.by === 'id' && !ref.id) throw invalidRequest('empty group ID');
    if (ref.by === 'name' && !ref.name) throw invalidRequest('empty group name');
    await this.groups.write(namespace, (graph) => {
      const group = find(graph, ref);
      const data = { id: group?.id ?? '', deletedAt: this.groups.now() };
      return { events: group ? [{ type: 'GroupDeleted', data }] : [], result: undefined };
    });
    return {};
  }

  async list(namespace: string, byId: boolean): Promise<Res<'groupByIdList'>> {
    const graph = await this.groups.graph(namespace);
    const groups = [...graph.values()].sort((a, b) =>
      byId ? a.id.localeCompare(b.id) : a.name.toLowerCase().localeCompare(b.name.toLowerCase()),
    );
    if (groups.length === 0) throw notFound();
    return { data: groupList(groups, graph, byId, await this.mountLookup(groups)) };
  }

  private mountLookup(groups: GroupState[]): Promise<MountLookup> {
    const accessors = groups.flatMap((g) => (g.alias ? [g.alias.mountAccessor] : []));
    return lookupMounts((a) => this.mounts.authMountByAccessor(a), accessors);
  }
}

function find(graph: GroupGraph, ref: GroupRef): GroupState | undefined {
  if (ref.by === 'id') return graph.get(ref.id);
  if (ref.by === 'name') return groupByName(graph, ref.name);
  return undefined;
}

/** The fields of a group write that were given (null and absent change nothing). */
export function groupInputOf(body: IdentityGroupBody): GroupInput {
  const input: GroupInput = {};
  if (body.name) input.name = body.name;
  if (body.type !== undefined) input.type = body.type;
  if (body.metadata !== undefined) input.metadata = body.metadata;
  if (body.policies !== undefined) input.policies = body.policies;
  if (body.member_entity_ids !== undefined) input.memberEntityIds = body.member_entity_ids;
  if (body.member_group_ids !== undefined) input.memberGroupIds = body.member_group_ids;
  return input;
}
