import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { ZeroAddressService } from '../access/zero-address.service';
import { keyRecordSchema } from '../keys/key.service';
import { RecordStore } from '../records/record.store';
import { decideRole, roleView } from './role.decider';
import { sshRoleSchema, type SshRole } from './role.model';

type Req<K extends keyof typeof ssh> = RequestOf<(typeof ssh)[K]>;
type Res<K extends keyof typeof ssh> = ResponseOf<(typeof ssh)[K]>;

/** roles/:name and LIST roles. */
@Injectable()
export class RoleService {
  constructor(
    private readonly records: RecordStore,
    private readonly zeroAddress: ZeroAddressService,
  ) {}

  /** The role, or undefined. */
  find(mountUuid: string, name: string): Promise<SshRole | undefined> {
    return this.records.get(mountUuid, 'role', name, sshRoleSchema);
  }

  async write(req: Req<'roleWrite'>): Promise<Res<'roleWrite'>> {
    const name = req.params.name;
    if (name === '') throw invalidRequest('missing role name');
    let keyExists = false;
    if (req.body.key !== '' && req.body.key_type.toLowerCase() === 'dynamic')
      keyExists =
        (await this.records.get(req.mount.uuid, 'key', req.body.key, keyRecordSchema)) !== undefined;
    const role = decideRole(req.body, () => keyExists);
    await this.records.put(req.mount.uuid, 'role', name, role);
    return {};
  }

  async read(req: Req<'roleRead'>): Promise<Res<'roleRead'>> {
    const role = await this.find(req.mount.uuid, req.params.name);
    if (!role) throw notFound();
    return { data: roleView(role) };
  }

  /** Deleting a role also takes it off the zero-address list. */
  async delete(req: Req<'roleDelete'>): Promise<Res<'roleDelete'>> {
    await this.zeroAddress.removeRole(req.mount.uuid, req.params.name);
    await this.records.delete(req.mount.uuid, 'role', req.params.name);
    return {};
  }

  async list(req: Req<'roleList'>): Promise<Res<'roleList'>> {
    const roles = await this.records.list(req.mount.uuid, 'role', sshRoleSchema);
    if (roles.length === 0) throw notFound();
    const keyInfo: Record<string, { key_type: string }> = {};
    for (const { name, value } of roles)
      Object.defineProperty(keyInfo, name, { value: { key_type: value.key_type }, enumerable: true });
    return { data: { keys: roles.map((r) => r.name), key_info: keyInfo } };
  }

  /** All roles of the mount (lookup). */
  all(mountUuid: string): Promise<Array<{ name: string; value: SshRole }>> {
    return this.records.list(mountUuid, 'role', sshRoleSchema);
  }
}
