import { Inject, Injectable } from '@nestjs/common';
import { coreEntityFacts, encodeContext, type CallerContext, type EntityFacts } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { populateTemplate } from '@coffer/acl';
import { SSH_RUNTIME } from '../ssh.di';

/** Identity templates ({{identity.entity.name}} ...) rendered for the caller's entity. */
@Injectable()
export class IdentityTemplates {
  constructor(@Inject(SSH_RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** The caller's entity (core-sys), or null for a token without one. */
  async entity(caller: CallerContext): Promise<EntityFacts | null> {
    if (!caller.entityId) return null;
    return this.runtime.transport.request(
      coreEntityFacts,
      { entityId: caller.entityId },
      { headers: encodeContext(caller) },
    );
  }

  /** `template` rendered for the entity; undefined when it cannot be (no entity, unknown key). */
  render(template: string, entity: EntityFacts | null): string | undefined {
    if (!entity) return undefined;
    const result = populateTemplate(template, { entity, now: this.runtime.clock() });
    return result.ok ? result.value : undefined;
  }
}
