import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  identityContracts,
  invalidRequest,
  notFound,
  type IdentityAliasBody,
  type ResponseOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { MountsService } from '../mounts/mounts.service';
import { decideAliasCreate, decideAliasUpdate, type AliasAppend, type AliasState } from './identity.decider';
import { IdentityEventLog } from './identity.projection';
import { IdentityRepository } from './identity.repository';
import type { VersionedEntity } from './identity.table';
import { IdentityService, isUniqueViolation } from './identity.service';
import { aliasList, aliasView, lookupMounts, type MountLookup } from './identity.view';

interface AliasInput {
  id: string;
  name: string;
  mountAccessor: string;
  canonicalId: string;
  customMetadata: Record<string, string> | undefined;
}

const MAX_ATTEMPTS = 5;

type Res<K extends keyof typeof identityContracts> = ResponseOf<(typeof identityContracts)[K]>;
/** identity/entity-alias and identity/entity-alias/id/:id writes answer the same shape. */
type WriteResponse = Res<'aliasWrite'>;

/** identity/entity-alias* routes (Vault's pathAliasIDUpdate / handleAliasCreateUpdateCommon). */
@Injectable()
export class AliasAdminService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: IdentityRepository,
    private readonly log: IdentityEventLog,
    private readonly identity: IdentityService,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
  ) {}

  /** Create or update; answers {id, canonical_id}, or 204 when nothing changes. */
  async write(namespace: string, body: IdentityAliasBody, pathId?: string): Promise<WriteResponse> {
    const input = aliasInputOf(body, pathId);
    for (let attempt = 1; ; attempt++) {
      try {
        return await retryOnConflict(() => this.writeOnce(namespace, input));
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  async read(namespace: string, id: string): Promise<Res<'aliasByIdRead'>> {
    if (!id) throw invalidRequest('missing alias id');
    const alias = await this.repo.aliasById(namespace, id);
    if (!alias) throw notFound();
    return { data: aliasView(alias, await this.mountLookup([alias])) };
  }

  async delete(namespace: string, id: string): Promise<Res<'aliasByIdDelete'>> {
    if (!id) throw invalidRequest('missing alias ID');
    await retryOnConflict(async () => {
      const alias = await this.repo.aliasById(namespace, id);
      if (!alias) return;
      const owner = await this.repo.entityById(alias.canonicalId);
      if (!owner) return;
      const result = await this.log.append(owner.state.id, owner.version, [
        { type: 'EntityAliasRemoved', data: { aliasId: id, movedTo: null, removedAt: this.now() } },
      ]);
      await this.identity.announceChange(result.before, result.after);
    });
    return {};
  }

  async list(namespace: string): Promise<Res<'aliasByIdList'>> {
    const aliases = await this.repo.allAliases(namespace);
    if (aliases.length === 0) throw notFound();
    return { data: aliasList(aliases, await this.mountLookup(aliases)) };
  }

  private async writeOnce(namespace: string, input: AliasInput): Promise<WriteResponse> {
    if (input.id) {
      const alias = await this.repo.aliasById(namespace, input.id);
      if (!alias) throw invalidRequest('invalid alias ID provided');
      if (!input.mountAccessor && !input.name && !input.canonicalId && input.customMetadata === undefined)
        return {};
      return this.update(namespace, alias, {
        ...input,
        name: input.name || alias.name,
        mountAccessor: input.mountAccessor || alias.mountAccessor,
      });
    }
    if (!input.mountAccessor || !input.name)
      throw invalidRequest("'id' or 'mount_accessor' and 'name' must be provided");
    await this.assertMountIn(namespace, input.mountAccessor);
    const existing = await this.repo.aliasByFactors(input.mountAccessor, input.name);
    if (existing) return this.update(namespace, existing, input);

    const entity = input.canonicalId ? await this.entityIn(namespace, input.canonicalId) : undefined;
    const decision = decideAliasCreate({
      entity: entity?.state ?? null,
      canonicalGiven: input.canonicalId !== '',
      mountAccessor: input.mountAccessor,
      name: input.name,
      customMetadata: input.customMetadata ?? {},
      aliasId: randomUUID(),
      newEntity: {
        id: randomUUID(),
        name: entity ? '' : await this.identity.freshName(namespace),
        namespace,
      },
      nowMs: this.now(),
    });
    const added = decision.events.find((e) => e.type === 'EntityAliasAdded');
    const aliasId = added?.type === 'EntityAliasAdded' ? added.data.aliasId : '';
    await this.apply(decision, entity?.version ?? 0);
    return { data: { id: aliasId, canonical_id: decision.entityId } };
  }

  private async update(namespace: string, alias: AliasState, input: AliasInput): Promise<WriteResponse> {
    const customMetadata = input.customMetadata ?? alias.customMetadata;
    const current = await this.repo.entityById(alias.canonicalId);
    if (!current) throw invalidRequest('given alias is not associated with an entity');
    const fieldsChange = input.name !== alias.name || input.mountAccessor !== alias.mountAccessor;
    if (fieldsChange) await this.assertMountIn(namespace, input.mountAccessor);
    const holder = fieldsChange ? await this.repo.aliasByFactors(input.mountAccessor, input.name) : undefined;
    const moving = input.canonicalId !== '' && input.canonicalId !== alias.canonicalId;
    const target = moving ? await this.entityIn(namespace, input.canonicalId) : undefined;
    const decision = decideAliasUpdate({
      alias,
      current: current.state,
      canonicalId: input.canonicalId,
      target: target?.state ?? null,
      name: input.name,
      mountAccessor: input.mountAccessor,
      customMetadata,
      factorsTaken: holder !== undefined && holder.id !== alias.id,
      nowMs: this.now(),
    });
    if (decision.kind === 'noop') return {};
    const versions = new Map<string, number>([[current.state.id, current.version]]);
    if (target) versions.set(target.state.id, target.version);
    for (const append of decision.appends) await this.apply(append, versions.get(append.entityId) ?? 0);
    return { data: { id: alias.id, canonical_id: decision.entityId } };
  }

  private async apply(append: AliasAppend, version: number): Promise<void> {
    const result = await this.log.append(
      append.entityId,
      append.expected === 'new' ? 0 : version,
      append.events,
    );
    await this.identity.announceChange(result.before, result.after);
  }

  /** An auth mount of the request's namespace (an accessor of another namespace is unknown here). */
  private async assertMountIn(namespace: string, accessor: string): Promise<void> {
    const mount = await this.mounts.authMountByAccessor(accessor);
    if (mount?.namespace !== namespace)
      throw invalidRequest(`invalid mount accessor ${JSON.stringify(accessor)}`);
  }

  /** The entity named by canonical_id; one of another namespace is refused as Vault does. */
  private async entityIn(namespace: string, id: string): Promise<VersionedEntity | undefined> {
    const found = await this.repo.entityById(id);
    if (found && found.state.namespace !== namespace)
      throw new DomainError('permission_denied', "entity found with 'canonical_id' not in request namespace");
    return found;
  }

  private mountLookup(aliases: AliasState[]): Promise<MountLookup> {
    return lookupMounts(
      (a) => this.mounts.authMountByAccessor(a),
      aliases.map((a) => a.mountAccessor),
    );
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}

function aliasInputOf(body: IdentityAliasBody, pathId?: string): AliasInput {
  return {
    id: pathId ?? body.id ?? '',
    name: body.name ?? '',
    mountAccessor: body.mount_accessor ?? '',
    canonicalId: body.canonical_id || body.entity_id || '',
    customMetadata: body.custom_metadata,
  };
}
