import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { cloudA } from '@coffer/contracts/cloud-a';
import { retryOnConflict } from '@coffer/event-store';
import { asUpstream, type CloudAAzure } from '../azure/cloud-a-azure';
import { CLOUD_A_RETRY, CloudAConfigService } from '../config/cloud-a-config.service';
import type { CloudARole } from '../records/cloud-a-record.events';
import { CloudARecordStore } from '../records/cloud-a-record.store';
import {
  checkRoleTtls,
  cloudARoleView,
  MISSING_ROLE_DEFINITIONS,
  parseRequestedGroups,
  parseRequestedRoles,
  uniqueAssignments,
  type RequestedGroup,
  type RequestedRole,
} from './cloud-a-role.rules';

/** Roles: what creds create (role assignments, group memberships) or the static application they use. */
@Injectable()
export class CloudARoleService {
  constructor(
    private readonly store: CloudARecordStore,
    private readonly config: CloudAConfigService,
  ) {}

  async list(req: RequestOf<typeof cloudA.roleList>): Promise<ResponseOf<typeof cloudA.roleList>> {
    const keys = await this.store.names(req.mount.uuid, 'role');
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  /** Referenced roles, groups and the application must exist in Azure (resolved here, ids stored). */
  async write(req: RequestOf<typeof cloudA.roleWrite>): Promise<ResponseOf<typeof cloudA.roleWrite>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name;
    const existing = await this.store.get(mountUuid, 'role', name);
    const prior = existing?.state.role;
    const ttl = req.body.ttl ?? prior?.ttl ?? 0;
    const maxTtl = req.body.max_ttl ?? prior?.max_ttl ?? 0;
    checkRoleTtls(ttl, maxTtl);
    const applicationObjectId = req.body.application_object_id ?? prior?.application_object_id ?? '';
    // as Vault: with an application, cloud_a_roles (and groups) are ignored
    const isStatic = applicationObjectId !== '';
    const requestedRoles =
      !isStatic && req.body.cloud_a_roles !== undefined
        ? parseRequestedRoles(req.body.cloud_a_roles)
        : undefined;
    const requestedGroups =
      !isStatic && req.body.cloud_a_groups !== undefined
        ? parseRequestedGroups(req.body.cloud_a_groups)
        : undefined;
    const azure = await this.config.azure(mountUuid);
    const role: CloudARole = {
      roles: [],
      groups: [],
      application_object_id: applicationObjectId,
      application_id: '',
      ttl,
      max_ttl: maxTtl,
    };
    try {
      if (isStatic) {
        const app = await azure.getApplication(applicationObjectId);
        if (!app)
          throw invalidRequest(
            `error loading Application: no application with object id '${applicationObjectId}'`,
          );
        role.application_id = app.appId;
      } else {
        role.roles = requestedRoles ? await this.resolveRoles(azure, requestedRoles) : (prior?.roles ?? []);
        role.groups = requestedGroups
          ? await this.resolveGroups(azure, requestedGroups)
          : (prior?.groups ?? []);
        if (role.roles.length === 0 && role.groups.length === 0)
          throw invalidRequest(MISSING_ROLE_DEFINITIONS);
      }
    } catch (error) {
      throw asUpstream(error);
    }
    await retryOnConflict(async () => {
      const current = await this.store.get(mountUuid, 'role', name);
      await this.store.append(
        mountUuid,
        'role',
        name,
        await this.store.versionOf(mountUuid, 'role', name, current),
        [{ type: 'CloudARoleWritten', data: { role } }],
      );
    }, CLOUD_A_RETRY);
    return {};
  }

  async read(req: RequestOf<typeof cloudA.roleRead>): Promise<ResponseOf<typeof cloudA.roleRead>> {
    const role = await this.store.get(req.mount.uuid, 'role', req.params.name);
    if (!role) throw notFound();
    return { data: cloudARoleView(role.state.role) };
  }

  /** Creds already issued keep their leases (revoked on their own); the role just stops issuing. */
  async delete(req: RequestOf<typeof cloudA.roleDelete>): Promise<ResponseOf<typeof cloudA.roleDelete>> {
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'role', req.params.name);
      if (!existing) return;
      await this.store.append(req.mount.uuid, 'role', req.params.name, existing.version, [
        { type: 'CloudARecordDeleted', data: {} },
      ]);
    }, CLOUD_A_RETRY);
    return {};
  }

  private async resolveRoles(azure: CloudAAzure, requested: RequestedRole[]): Promise<CloudARole['roles']> {
    const resolved: CloudARole['roles'] = [];
    for (const r of requested) {
      if (r.role_id !== '') {
        const def = await azure.getRoleDefinition(r.role_id);
        if (!def) throw invalidRequest(`no role found for role_id: '${r.role_id}'`);
        resolved.push({ role_name: def.roleName, role_id: def.id, scope: r.scope });
        continue;
      }
      const defs = await azure.findRoleDefinitions(r.scope, r.role_name);
      if (defs.length === 0) throw invalidRequest(`no role found for role_name: '${r.role_name}'`);
      if (defs.length > 1)
        throw invalidRequest(
          `multiple matches found for role_name: '${r.role_name}'. Specify role by ID instead.`,
        );
      resolved.push({ role_name: defs[0]!.roleName, role_id: defs[0]!.id, scope: r.scope });
    }
    return uniqueAssignments(resolved);
  }

  private async resolveGroups(
    azure: CloudAAzure,
    requested: RequestedGroup[],
  ): Promise<CloudARole['groups']> {
    const resolved: CloudARole['groups'] = [];
    for (const g of requested) {
      if (g.object_id !== '') {
        const group = await azure.getGroup(g.object_id);
        if (!group) throw invalidRequest(`no group found for object_id: '${g.object_id}'`);
        resolved.push({ group_name: group.displayName, object_id: group.objectId });
        continue;
      }
      const groups = await azure.findGroups(g.group_name);
      if (groups.length === 0) throw invalidRequest(`no group found for group_name: '${g.group_name}'`);
      if (groups.length > 1)
        throw invalidRequest(
          `multiple matches found for group_name: '${g.group_name}'. Specify group by ObjectID instead.`,
        );
      resolved.push({ group_name: groups[0]!.displayName, object_id: groups[0]!.objectId });
    }
    const seen = new Set<string>();
    return resolved.filter((g) => !seen.has(g.object_id) && seen.add(g.object_id));
  }
}
