import { Inject, Injectable } from '@nestjs/common';
import { coreEntityFacts, coreTokenAlive, coreTokenCreatedAt, type EntityFacts } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { OIDC_RUNTIME } from '../oidc.di';
import { ALLOW_ALL_ASSIGNMENT, type AssignmentState } from '../config/oidc-config.state';
import { OidcResources } from '../config/oidc-resources';

/**
 * Whether an entity may use a client with these assignments: `allow_all`, or listed by entity
 * id, or a member (direct or inherited) of a listed group. A client naming an assignment that no
 * longer exists is a configuration error (Vault: a server error).
 */
export function entityAssigned(
  entity: EntityFacts,
  assignments: readonly { name: string; state: AssignmentState | undefined }[],
): boolean {
  if (assignments.some((a) => a.name === ALLOW_ALL_ASSIGNMENT)) return true;
  const groups = new Set(entity.groups.map((g) => g.id));
  for (const { name, state } of assignments) {
    if (!state) throw new Error(`client assignment ${JSON.stringify(name)} not found`);
    if (state.entityIds.includes(entity.id)) return true;
    if (state.groupIds.some((id) => groups.has(id))) return true;
  }
  return false;
}

/** What the provider learns of identity and tokens from core-sys, through contracts only. */
@Injectable()
export class EntityAccess {
  constructor(
    private readonly resources: OidcResources,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'transport'>,
  ) {}

  /** The entity's id, name, metadata, aliases and groups (direct and inherited), or null. */
  facts(entityId: string): Promise<EntityFacts | null> {
    return this.runtime.transport.request(coreEntityFacts, { entityId });
  }

  /** Whether the entity may use a client with these assignments (entityAssigned). */
  async assigned(namespace: string, entity: EntityFacts, assignments: readonly string[]): Promise<boolean> {
    if (assignments.includes(ALLOW_ALL_ASSIGNMENT)) return true;
    const found = await Promise.all(
      assignments.map(async (name) => ({
        name,
        state: await this.resources.get(namespace, 'assignment', name),
      })),
    );
    return entityAssigned(entity, found);
  }

  /** Whether the Coffer token behind a token ref is still alive (not revoked, not swept). */
  async tokenAlive(tokenRef: string): Promise<boolean> {
    const { alive } = await this.runtime.transport.request(coreTokenAlive, { tokenRefs: [tokenRef] });
    return alive.includes(tokenRef);
  }

  /** When the Coffer token behind a token ref was created (unix ms), or null when it is gone. */
  async tokenCreatedAt(tokenRef: string): Promise<number | null> {
    return (await this.runtime.transport.request(coreTokenCreatedAt, { tokenRef })).createdAt;
  }
}
