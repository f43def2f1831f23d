import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  notFound,
  tokenContracts,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import { createParamsOf } from '../tokens/token.decider';
import { TokenAdminService } from '../tokens/token-admin.service';
import { decideRoleToken } from './role-token.decider';
import { applyRoleFields, assertRoleName, roleView } from './token-role.decider';
import { TokenRoleEventLog } from './token-role.projection';
import { TokenRoleRepository } from './token-role.repository';

type Req<K extends keyof typeof tokenContracts> = RequestOf<(typeof tokenContracts)[K]>;
type Res<K extends keyof typeof tokenContracts> = ResponseOf<(typeof tokenContracts)[K]>;
type RoleRef = Pick<Req<'roleRead'>, 'params'>;

/** auth/token/roles/* and auth/token/create/:role. */
@Injectable()
export class TokenRoleService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: TokenRoleRepository,
    private readonly log: TokenRoleEventLog,
    @Inject(TokenAdminService)
    private readonly admin: Pick<TokenAdminService, 'parentToken' | 'issueChild'>,
    @Inject(IdentityService)
    private readonly identity: Pick<IdentityService, 'entityForAlias' | 'standing'>,
  ) {}

  async exists(req: { params?: Record<string, string> }): Promise<{ exists: boolean }> {
    return { exists: (await this.repo.find(req.params?.['name'] ?? '')) !== undefined };
  }

  async list(): Promise<Res<'roleList'>> {
    const keys = await this.repo.names();
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async read(req: RoleRef): Promise<Res<'roleRead'>> {
    const found = await this.repo.find(req.params.name);
    if (!found) throw notFound();
    return { data: roleView(found.state) };
  }

  /** Create (Vault's defaults) or update (only the given fields change). 204. */
  async write(req: Req<'roleWrite'>): Promise<Res<'roleWrite'>> {
    const { name } = req.params;
    assertRoleName(name);
    await retryOnConflict(async () => {
      const current = await this.repo.find(name);
      const role = applyRoleFields(name, current?.state, req.body);
      await this.log.append(name, current?.version ?? (await this.log.version(name)), [
        { type: 'TokenRoleWritten', data: { ...role, writtenAt: this.now() } },
      ]);
    });
    return {};
  }

  async delete(req: RoleRef): Promise<Res<'roleDelete'>> {
    const { name } = req.params;
    await retryOnConflict(async () => {
      const current = await this.repo.find(name);
      if (!current) return;
      await this.log.append(name, current.version, [
        { type: 'TokenRoleDeleted', data: { deletedAt: this.now() } },
      ]);
    });
    return {};
  }

  async createToken(req: Req<'createWithRole'>, caller: CallerContext): Promise<Res<'createWithRole'>> {
    const name = req.params.role;
    const role = await this.repo.find(name);
    if (!role) throw invalidRequest(`unknown role ${name}`);
    // The role decides the type and the entity alias: the plain create's rules for them do not apply.
    const params = createParamsOf({ ...req.body, type: undefined, entity_alias: undefined });
    const parent = await this.admin.parentToken(caller);
    const entityAlias = req.body.entity_alias ?? '';
    const { spec, warnings } = decideRoleToken({
      parent: parent.state,
      sudo: caller.root || caller.sudo,
      role: role.state,
      params,
      requestedType: req.body.type ?? '',
      entityAlias,
      path: `auth/token/create/${name}`,
    });
    if (entityAlias !== '') spec.entityId = await this.aliasEntity(req.mount.accessor, entityAlias);
    return this.admin.issueChild(spec, req.mount, warnings);
  }

  /**
   * Vault's CreateOrFetchEntity for an alias on the token store's mount: the token belongs to
   * that alias's entity (created on first use), which must not be disabled.
   */
  private async aliasEntity(mountAccessor: string, alias: string): Promise<string> {
    const entityId = await this.identity.entityForAlias(mountAccessor, alias);
    if ((await this.identity.standing(entityId))?.disabled) {
      throw new DomainError('permission_denied', 'entity is disabled');
    }
    return entityId;
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
