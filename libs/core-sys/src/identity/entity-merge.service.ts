import { Inject, Injectable } from '@nestjs/common';
import { identityLookupContracts, type IdentityMergeBody, type ResponseOf } from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { decideMerge } from './entity-merge.decider';
import { GroupService } from './group.service';
import type { EntityState } from './identity.decider';
import { IdentityEventLog } from './identity.projection';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';

/**
 * identity/entity/merge: the target takes the merged entities' aliases over (one append to its
 * stream, first, so no alias is ever without an entity), then each merged entity ends with
 * EntityMergedInto, then their group memberships pass to the target. Their tokens keep their
 * entity id, which now resolves to the target.
 */
@Injectable()
export class EntityMergeService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: IdentityRepository,
    private readonly log: IdentityEventLog,
    private readonly identity: IdentityService,
    private readonly groups: GroupService,
  ) {}

  async merge(
    namespace: string,
    body: IdentityMergeBody,
  ): Promise<ResponseOf<typeof identityLookupContracts.entityMerge>> {
    const toId = body.to_entity_id ?? '';
    const fromIds = body.from_entity_ids ?? [];
    const decision = await retryOnConflict(async () => {
      // Only entities of the request's namespace take part: others are unknown here.
      const to = toId ? await this.repo.entityIn(namespace, toId) : undefined;
      const from = new Map<string, EntityState>();
      const versions = new Map<string, number>();
      for (const id of new Set(fromIds)) {
        const found = await this.repo.entityIn(namespace, id);
        if (!found) continue;
        from.set(id, found.state);
        versions.set(id, found.version);
      }
      const d = decideMerge({
        to: to?.state ?? null,
        toId,
        fromIds,
        from,
        keep: body.conflicting_alias_ids_to_keep ?? [],
        nowMs: this.runtime.clock().getTime(),
      });
      await this.log.append(toId, to?.version ?? 0, d.target);
      for (const m of d.merged) await this.log.append(m.entityId, versions.get(m.entityId) ?? 0, m.events);
      return d;
    });
    await this.groups.mergeEntities(namespace, decision.fromIds, toId);
    await this.identity.announce([toId, ...decision.fromIds], true);
    return {};
  }
}
