import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  identityGroupContracts,
  invalidRequest,
  notFound,
  type IdentityGroupAliasBody,
  type ResponseOf,
} from '@coffer/contracts';
import { MountsService } from '../mounts/mounts.service';
import {
  decideGroupAliasWrite,
  groupByAliasId,
  type GroupAliasState,
  type GroupGraph,
} from './group.decider';
import { GroupService } from './group.service';
import { groupAliasList, groupAliasView } from './group.view';
import { lookupMounts } from './identity.view';

type Res<K extends keyof typeof identityGroupContracts> = ResponseOf<(typeof identityGroupContracts)[K]>;

/** The group aliases of a graph, by id. */
export function groupAliases(graph: GroupGraph): GroupAliasState[] {
  return [...graph.values()]
    .flatMap((g) => (g.alias ? [g.alias] : []))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** identity/group-alias* routes (Vault's identity_store_group_aliases.go). */
@Injectable()
export class GroupAliasAdminService {
  constructor(
    private readonly groups: GroupService,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
  ) {}

  /** Create or update; answers {id, canonical_id}, or 204 when nothing changes. */
  async write(
    namespace: string,
    body: IdentityGroupAliasBody,
    pathId?: string,
  ): Promise<Res<'groupAliasWrite'>> {
    const id = pathId ?? body.id;
    if (id === '') throw invalidRequest('empty group alias ID');
    const mountAccessor = body.mount_accessor ?? '';
    const mountEntry = mountAccessor ? await this.mounts.authMountByAccessor(mountAccessor) : undefined;
    // An auth mount of another namespace is unknown here.
    const mount = mountEntry?.namespace === namespace ? { local: mountEntry.local } : undefined;
    const outcome = await this.groups.write(namespace, (graph) => {
      const alias = id !== undefined ? groupByAliasId(graph, id)?.alias : null;
      if (alias === undefined) throw invalidRequest('invalid group alias ID');
      const name = body.name ?? '';
      const holder = groupAliases(graph).find((a) => a.mountAccessor === mountAccessor && a.name === name);
      const decision = decideGroupAliasWrite({
        graph,
        alias,
        name,
        mountAccessor,
        canonicalId: body.canonical_id ?? '',
        mount,
        factorsHolder: holder,
        newAliasId: randomUUID(),
        newGroup: { id: randomUUID(), name: this.groups.freshName(graph) },
        nowMs: this.groups.now(),
      });
      return { events: decision.kind === 'write' ? decision.events : [], result: decision };
    });
    if (outcome.kind === 'noop') return {};
    return { data: { id: outcome.aliasId, canonical_id: outcome.groupId } };
  }

  async read(namespace: string, id: string): Promise<Res<'groupAliasByIdRead'>> {
    if (!id) throw invalidRequest('empty group alias id');
    const alias = groupByAliasId(await this.groups.graph(namespace), id)?.alias;
    if (!alias) throw notFound();
    return { data: groupAliasView(alias, await this.lookup([alias])) };
  }

  async delete(namespace: string, id: string): Promise<Res<'groupAliasByIdDelete'>> {
    if (!id) throw invalidRequest('missing group alias ID');
    await this.groups.write(namespace, (graph) => {
      const group = groupByAliasId(graph, id);
      const data = { groupId: group?.id ?? '', aliasId: id, removedAt: this.groups.now() };
      return { events: group ? [{ type: 'GroupAliasRemoved', data }] : [], result: undefined };
    });
    return {};
  }

  async list(namespace: string): Promise<Res<'groupAliasByIdList'>> {
    const aliases = groupAliases(await this.groups.graph(namespace));
    if (aliases.length === 0) throw notFound();
    return { data: groupAliasList(aliases, await this.lookup(aliases)) };
  }

  private lookup(aliases: GroupAliasState[]) {
    return lookupMounts(
      (a) => this.mounts.authMountByAccessor(a),
      aliases.map((a) => a.mountAccessor),
    );
  }
}
