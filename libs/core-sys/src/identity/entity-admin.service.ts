import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  identityContracts,
  invalidRequest,
  notFound,
  type IdentityEntityBody,
  type ResponseOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { MountsService } from '../mounts/mounts.service';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { decideEntityWrite, type EntityInput, type EntityState } from './identity.decider';
import { IdentityEventLog } from './identity.projection';
import { IdentityRepository } from './identity.repository';
import { GroupService } from './group.service';
import { IdentityService, isUniqueViolation } from './identity.service';
import { entityList, entityView, lookupMounts, type MountLookup } from './identity.view';

/** Where the entity of a write or read is named: the body, the id path or the name path. */
export type EntityRef = { by: 'body' } | { by: 'id'; id: string } | { by: 'name'; name: string };

const MAX_ATTEMPTS = 5;

/** The by-id and by-name routes answer the same shapes: typed with the by-id ones. */
type Res<K extends keyof typeof identityContracts> = ResponseOf<(typeof identityContracts)[K]>;

/** identity/entity* routes. */
@Injectable()
export class EntityAdminService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: IdentityRepository,
    private readonly log: IdentityEventLog,
    private readonly identity: IdentityService,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
    private readonly groups: GroupService,
    @Inject(NamespaceRepository) private readonly namespaces: Pick<NamespaceRepository, 'idOf'>,
  ) {}

  /** Create (200 {id, name, aliases}) or update (204), Vault's handleEntityUpdateCommon. */
  async write(namespace: string, body: IdentityEntityBody, ref: EntityRef): Promise<Res<'entityWrite'>> {
    const input = entityInputOf(body);
    let id = body.id || undefined;
    if (ref.by === 'id') id = ref.id;
    if (ref.by === 'name') input.name = ref.name;

    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await retryOnConflict(async () => {
          const byId = id !== undefined ? await this.repo.entityIn(namespace, id) : undefined;
          const byName = input.name ? await this.repo.entityByName(namespace, input.name) : undefined;
          const decision = decideEntityWrite({
            byId: byId?.state ?? null,
            idGiven: id !== undefined,
            byName: byName?.state ?? null,
            input,
            newId: randomUUID(),
            namespace,
            generatedName: input.name ? '' : await this.identity.freshName(namespace),
            nowMs: this.runtime.clock().getTime(),
          });
          if (decision.events.length === 0) return { decision, before: null, after: null };
          const target = byId?.state.id === decision.entityId ? byId : byName;
          const expected = decision.expected === 'new' ? 0 : (target?.version ?? 0);
          const { before, after } = await this.log.append(decision.entityId, expected, decision.events);
          return { decision, before, after };
        });
        if (outcome.after) await this.identity.announceChange(outcome.before, outcome.after);
        const { decision } = outcome;
        if (!decision.created) return {};
        return { data: { id: decision.after.id, name: decision.after.name, aliases: null } };
      } catch (error) {
        // A concurrent create took the name: run again, it is an update of that entity now.
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  async read(namespace: string, ref: EntityRef): Promise<Res<'entityByIdRead'>> {
    const found = await this.find(namespace, ref);
    if (!found) throw notFound();
    return { data: await this.view(found) };
  }

  /** An entity as read, with the groups it is in (direct, and inherited through nesting). */
  async view(entity: EntityState): Promise<NonNullable<Res<'entityByIdRead'>['data']>> {
    const groups = await this.groups.groupsOfEntity(entity.id);
    const ids = (direct: boolean) => groups.filter((g) => g.direct === direct).map((g) => g.id);
    const namespaceId = entity.namespace === '' ? 'root' : await this.namespaces.idOf(entity.namespace);
    return entityView(
      entity,
      await this.mountLookup([entity]),
      { direct: ids(true), inherited: ids(false) },
      namespaceId,
    );
  }

  async delete(namespace: string, ref: EntityRef): Promise<Res<'entityByIdDelete'>> {
    const deleted = await this.deleteOne(namespace, ref);
    await this.groups.removeEntities(namespace, deleted);
    return {};
  }

  /** Vault's handleEntityBatchDelete: unknown ids are skipped. */
  async batchDelete(namespace: string, entityIds: string[] | undefined): Promise<Res<'entityByIdDelete'>> {
    if (!entityIds || entityIds.length === 0) throw invalidRequest('missing entity ids to delete');
    const deleted: string[] = [];
    for (const id of new Set(entityIds))
      if (id) deleted.push(...(await this.deleteOne(namespace, { by: 'id', id })));
    await this.groups.removeEntities(namespace, deleted);
    return {};
  }

  /**
   * Deleting a namespace: its groups, then its entities (with their aliases) go, and leave the
   * groups of other namespaces that held them.
   */
  async deleteNamespace(namespace: string): Promise<void> {
    if (namespace === '') return;
    await this.groups.deleteNamespace(namespace);
    const deleted: string[] = [];
    for (const id of await this.repo.entityIdsOf(namespace))
      deleted.push(...(await this.deleteOne(namespace, { by: 'id', id })));
    await this.groups.removeEntities(namespace, deleted);
  }

  /** Deletes the entity (and its aliases); answers its id, or nothing when there was none. */
  private deleteOne(namespace: string, ref: EntityRef): Promise<string[]> {
    return retryOnConflict(async () => {
      const found =
        ref.by === 'id'
          ? await this.repo.entityIn(namespace, ref.id)
          : ref.by === 'name'
            ? await this.repo.entityByName(namespace, ref.name)
            : undefined;
      if (!found) return [];
      const { before, after } = await this.log.append(found.state.id, found.version, [
        { type: 'EntityDeleted', data: { deletedAt: this.runtime.clock().getTime() } },
      ]);
      await this.identity.announceChange(before, after);
      return [found.state.id];
    });
  }

  async list(namespace: string, byId: boolean): Promise<Res<'entityByIdList'>> {
    const entities = await this.repo.allEntities(namespace);
    if (entities.length === 0) throw notFound();
    const sorted = byId ? [...entities].sort((a, b) => a.id.localeCompare(b.id)) : entities;
    return { data: entityList(sorted, byId, await this.mountLookup(sorted)) };
  }

  private async find(namespace: string, ref: EntityRef): Promise<EntityState | undefined> {
    if (ref.by === 'id') {
      if (!ref.id) throw invalidRequest('missing entity id');
      return (await this.repo.entityIn(namespace, ref.id))?.state;
    }
    if (ref.by === 'name') {
      if (!ref.name) throw invalidRequest('missing entity name');
      return (await this.repo.entityByName(namespace, ref.name))?.state;
    }
    return undefined;
  }

  private mountLookup(entities: EntityState[]): Promise<MountLookup> {
    const accessors = entities.flatMap((e) => e.aliases.map((a) => a.mountAccessor));
    return lookupMounts((a) => this.mounts.authMountByAccessor(a), accessors);
  }
}

/** The fields of an entity write that were given (null and absent change nothing). */
export function entityInputOf(body: IdentityEntityBody): EntityInput {
  const input: EntityInput = {};
  if (body.name) input.name = body.name;
  if (body.metadata !== undefined) input.metadata = body.metadata;
  if (body.policies !== undefined) input.policies = body.policies.filter((p) => p !== '');
  if (body.disabled !== undefined) input.disabled = body.disabled;
  return input;
}
