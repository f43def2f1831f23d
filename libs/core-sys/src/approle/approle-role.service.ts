import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  approleContracts,
  invalidRequest,
  notFound,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { mountTtls } from '../tokens/token-ttl';
import { decideRoleWrite, normalizeRoleName, roleView, type RoleState } from './approle.decider';
import { roleBodyOf, roleFieldOf, roleFieldUpdate, roleFieldView } from './approle-role-field.decider';
import { ApproleRoleEventLog, ApproleSecretIdEventLog } from './approle.projection';
import { ApproleRepository } from './approle.repository';
import { ROLE_ID_UNIQUE } from './approle.table';

type Req<K extends keyof typeof approleContracts> = RequestOf<(typeof approleContracts)[K]>;
type Res<K extends keyof typeof approleContracts> = ResponseOf<(typeof approleContracts)[K]>;
type RoleRef = Pick<Req<'roleRead'>, 'mount' | 'params'>;

const roleIdInUse = () => invalidRequest('role_id already in use');

/** AppRole roles of a mount (by mount uuid) and their role ids. */
@Injectable()
export class ApproleRoleService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: ApproleRepository,
    private readonly roles: ApproleRoleEventLog,
    private readonly secretIds: ApproleSecretIdEventLog,
  ) {}

  async exists(req: Pick<Req<'roleExists'>, 'mount' | 'params'>): Promise<{ exists: boolean }> {
    const found = await this.repo.role(req.mount.uuid, normalizeRoleName(req.params['role_name'] ?? ''));
    return { exists: found !== undefined };
  }

  /** Create (a role id is generated unless given) or update (only the given fields change). 204. */
  async write(req: Req<'roleWrite'>): Promise<Res<'roleWrite'>> {
    const mountUuid = req.mount.uuid;
    const roleName = normalizeRoleName(req.params.role_name);
    await retryOnConflict(
      async () => {
        const current = await this.repo.role(mountUuid, roleName);
        const next = decideRoleWrite(current?.state ?? null, { mountUuid, roleName }, req.body, randomUUID());
        await this.assertRoleIdFree(mountUuid, roleName, next.roleId);
        // a role deleted before leaves its stream: a new one of the same name continues it
        const version = current?.version ?? (await this.roles.version({ mountUuid, roleName }));
        await this.roles.append({ mountUuid, roleName }, version, [
          { type: 'ApproleRoleWritten', data: { ...next, writtenAt: this.now() } },
        ]);
      },
      { uniqueConstraints: [ROLE_ID_UNIQUE] },
    );
    return {};
  }

  async read(req: RoleRef): Promise<Res<'roleRead'>> {
    const found = await this.repo.role(req.mount.uuid, normalizeRoleName(req.params.role_name));
    if (!found) throw notFound();
    return { data: roleView(found.state) };
  }

  async list(req: Pick<Req<'roleList'>, 'mount'>): Promise<Res<'roleList'>> {
    const keys = await this.repo.roleNames(req.mount.uuid);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  /** The role and every secret id it issued. 204, also when the role does not exist. */
  async delete(req: RoleRef): Promise<Res<'roleDelete'>> {
    await this.deleteRole(req.mount.uuid, normalizeRoleName(req.params.role_name));
    return {};
  }

  /** role/:role_name/<field>: that field of the role; 404 without the role. */
  async fieldRead(req: Req<'roleFieldRead'>): Promise<Res<'roleFieldRead'>> {
    const field = roleFieldOf(req.path);
    const found = await this.repo.role(req.mount.uuid, normalizeRoleName(req.params.role_name));
    if (!found) throw notFound();
    return { data: roleFieldView(field, found.state) };
  }

  /** Sets one field (it must be given); the role must exist (Vault: unsupported path, 404). 204. */
  async fieldWrite(req: Req<'roleFieldWrite'>): Promise<Res<'roleFieldWrite'>> {
    const field = roleFieldOf(req.path);
    await this.rewrite(req, (current) => {
      if (!current) throw notFound();
      return roleFieldUpdate(field, current, req.body, mountTtls(req.mount.config).maxTtl);
    });
    return {};
  }

  /** Puts one field's default back. 204, also when the role does not exist. */
  async fieldDelete(req: Req<'roleFieldDelete'>): Promise<Res<'roleFieldDelete'>> {
    const field = roleFieldOf(req.path);
    await this.rewrite(req, (current) => (current ? field.reset : undefined));
    return {};
  }

  async roleIdRead(req: RoleRef): Promise<Res<'roleIdRead'>> {
    const found = await this.repo.role(req.mount.uuid, normalizeRoleName(req.params.role_name));
    if (!found) throw notFound();
    return { data: { role_id: found.state.roleId } };
  }

  async roleIdWrite(req: Req<'roleIdWrite'>): Promise<Res<'roleIdWrite'>> {
    const mountUuid = req.mount.uuid;
    const roleName = normalizeRoleName(req.params.role_name);
    const roleId = req.body.role_id ?? '';
    await retryOnConflict(
      async () => {
        const current = await this.repo.role(mountUuid, roleName);
        if (!current) throw notFound();
        if (roleId === '') throw invalidRequest('missing role_id');
        await this.assertRoleIdFree(mountUuid, roleName, roleId);
        await this.roles.append({ mountUuid, roleName }, current.version, [
          { type: 'ApproleRoleIdSet', data: { roleId, setAt: this.now() } },
        ]);
      },
      { uniqueConstraints: [ROLE_ID_UNIQUE] },
    );
    return {};
  }

  /** Deletes every role of a mount (the auth method was disabled); idempotent across replicas. */
  async purgeMount(mountUuid: string): Promise<number> {
    const names = await this.repo.roleNames(mountUuid);
    for (const roleName of names) await this.deleteRole(mountUuid, roleName);
    return names.length;
  }

  private async deleteRole(mountUuid: string, roleName: string): Promise<void> {
    // Secret ids first: a login racing the delete finds either both or no role.
    for (const { hmac } of await this.repo.secretIdsOfRole(mountUuid, roleName)) {
      await retryOnConflict(async () => {
        const current = await this.repo.secretId(mountUuid, hmac);
        if (!current) return;
        await this.secretIds.append({ mountUuid, hmac }, current.version, [
          { type: 'ApproleSecretIdDestroyed', data: { destroyedAt: this.now() } },
        ]);
      });
    }
    await retryOnConflict(async () => {
      const current = await this.repo.role(mountUuid, roleName);
      if (!current) return;
      await this.roles.append({ mountUuid, roleName }, current.version, [
        { type: 'ApproleRoleDeleted', data: { deletedAt: this.now() } },
      ]);
    });
  }

  /** Applies a partial body to an existing role (nothing when `change` gives none). */
  private async rewrite(
    req: RoleRef,
    change: (current: RoleState | null) => Parameters<typeof roleBodyOf>[0] | undefined,
  ): Promise<void> {
    const mountUuid = req.mount.uuid;
    const roleName = normalizeRoleName(req.params.role_name);
    await retryOnConflict(async () => {
      const current = await this.repo.role(mountUuid, roleName);
      const body = change(current?.state ?? null);
      if (!current || !body) return;
      const key = { mountUuid, roleName };
      const next = decideRoleWrite(current.state, key, roleBodyOf(body), current.state.roleId);
      await this.roles.append({ mountUuid, roleName }, current.version, [
        { type: 'ApproleRoleWritten', data: { ...next, writtenAt: this.now() } },
      ]);
    });
  }

  private async assertRoleIdFree(mountUuid: string, roleName: string, roleId: string): Promise<void> {
    const holder = await this.repo.roleById(mountUuid, roleId);
    if (holder && holder.state.roleName !== roleName) throw roleIdInUse();
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
