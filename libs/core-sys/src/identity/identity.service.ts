import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { invalidation, type EntityFacts } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { LoginAliasForwarder } from './login-alias-forwarder';
import { MountsService } from '../mounts/mounts.service';
import { GroupRepository } from './group.repository';
import { affectsTokens, decideAliasCreate, normalisePolicies, type EntityState } from './identity.decider';
import { IdentityEventLog } from './identity.projection';
import { IdentityRepository } from './identity.repository';

export interface EntityStanding {
  disabled: boolean;
  /** policies in the token's namespace: the entity's own and those of its groups there */
  policies: string[];
  /**
   * policies of its groups in namespaces above the token's (Vault's external_namespace_policies),
   * by namespace path: they name policies of that namespace, whose paths are relative to it
   */
  externalPolicies: Record<string, string[]>;
}

/** Vault's generated entity names: "entity_" + 8 random hex digits. */
export const generateEntityName = (): string => `entity_${randomBytes(4).toString('hex')}`;

/** Races on a unique name or alias are settled by the read model's unique indexes. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

const MAX_ATTEMPTS = 5;

/**
 * What the rest of core-sys needs from the identity store: the standing of a token's entity,
 * entity facts for ACL templating, and the entity behind an auth method's alias (created on
 * first login). Also the one place that tells caches about identity changes.
 */
@Injectable()
export class IdentityService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: IdentityRepository,
    private readonly log: IdentityEventLog,
    private readonly groups: GroupRepository,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
    private readonly forwarder: LoginAliasForwarder,
  ) {}

  /**
   * A token's entity as the token sees it: the entity's own policies plus those of every group
   * it is in, directly or through nesting (Vault's fetchEntityAndDerivedPolicies). A token of an
   * entity merged away stands as the entity it was merged into.
   */
  async standing(entityId: string, tokenNamespace = ''): Promise<EntityStanding | null> {
    const own = await this.repo.standing(entityId);
    if (!own) return null;
    const groups = await this.groups.groupsOfEntity(own.id);
    const policies = [...own.policies];
    const external = new Map<string, string[]>();
    for (const g of groups) {
      // A group may hold entities of any namespace, but its policies apply only to tokens of
      // its namespace and below (Vault's default group_policy_application_mode,
      // within_namespace_hierarchy).
      if (g.namespace === tokenNamespace) policies.push(...g.policies);
      else if (tokenNamespace.startsWith(g.namespace))
        external.set(g.namespace, [...(external.get(g.namespace) ?? []), ...g.policies]);
    }
    const externalPolicies: Record<string, string[]> = {};
    for (const [namespace, names] of [...external].sort(([a], [b]) => a.localeCompare(b))) {
      const normalised = normalisePolicies(names);
      if (normalised.length > 0) externalPolicies[namespace] = normalised;
    }
    return { disabled: own.disabled, policies: normalisePolicies(policies), externalPolicies };
  }

  /** Entity facts for templating and the OIDC provider: its groups are direct and inherited. */
  async facts(entityId: string): Promise<EntityFacts | null> {
    const id = await this.repo.currentEntityId(entityId);
    const found = id === undefined ? undefined : await this.repo.entityById(id);
    if (!found) return null;
    const { state } = found;
    const groups = await this.groups.groupsOfEntity(state.id);
    return {
      id: state.id,
      name: state.name,
      metadata: state.metadata,
      aliases: state.aliases.map((a) => ({ mount_accessor: a.mountAccessor, name: a.name })),
      groups: groups.map((g) => ({ id: g.id, name: g.name })),
    };
  }

  /**
   * The entity of the alias (mount accessor, name), created together with the alias if there is
   * none yet: one append to a new stream, so a failed login never leaves an entity behind. The
   * entity belongs to the namespace of the auth mount (a login in ns1 makes an ns1 entity).
   */
  async entityForAlias(mountAccessor: string, name: string): Promise<string> {
    const mount = await this.mounts.authMountByAccessor(mountAccessor);
    const namespace = mount?.namespace ?? '';
    for (let attempt = 1; ; attempt++) {
      const existing = await this.repo.aliasByFactors(mountAccessor, name);
      if (existing) return existing.canonicalId;
      // a performance secondary's login: the primary makes it (LoginAliasForwarder)
      const primary = attempt === 1 ? await this.forwarder.entityOnPrimary(mount, name) : undefined;
      if (primary !== undefined) return primary;
      const decision = decideAliasCreate({
        entity: null,
        canonicalGiven: false,
        mountAccessor,
        name,
        customMetadata: {},
        aliasId: randomUUID(),
        newEntity: { id: randomUUID(), name: await this.freshName(namespace), namespace },
        nowMs: this.runtime.clock().getTime(),
      });
      try {
        await this.log.append(decision.entityId, 0, decision.events);
        await this.announce([decision.entityId], false);
        return decision.entityId;
      } catch (error) {
        // Another login of the same user created the alias first (or the name was taken).
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** A generated entity name nobody in the namespace uses yet. */
  async freshName(namespace: string): Promise<string> {
    for (;;) {
      const name = generateEntityName();
      if (!(await this.repo.nameTaken(namespace, name))) return name;
    }
  }

  /**
   * After commit, before answering: gateways drop cached entity facts, and cached tokens when
   * the change alters what tokens of these entities may do (policies, disabled, deletion).
   */
  async announceChange(before: EntityState | null, after: EntityState | null): Promise<void> {
    const id = (after ?? before)?.id;
    if (id === undefined) return;
    await this.announce([id], affectsTokens(before, after));
  }

  async announce(entityIds: string[], tokens: boolean): Promise<void> {
    const { transport } = this.runtime;
    await transport.publish(invalidation, { kind: 'entity', keys: entityIds });
    // Resolved tokens carry identity policies and are cached by accessor, unknown here: drop all.
    if (tokens) await transport.publish(invalidation, { kind: 'token', keys: [] });
    await transport.flush();
  }
}
