import { Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { z } from 'zod';
import { sshRoleSchema } from '../roles/role.model';
import { RecordStore } from '../records/record.store';

const zeroAddressSchema = z.object({ roles: z.array(z.string()) });
const ZERO = 'roles';

/** config/zeroaddress: roles that take any IP (their CIDR blocks are ignored). */
@Injectable()
export class ZeroAddressService {
  constructor(private readonly records: RecordStore) {}

  async roles(mountUuid: string): Promise<string[]> {
    return (await this.records.get(mountUuid, 'zeroaddress', ZERO, zeroAddressSchema))?.roles ?? [];
  }

  async read(req: RequestOf<typeof ssh.zeroAddressRead>): Promise<ResponseOf<typeof ssh.zeroAddressRead>> {
    const entry = await this.records.get(req.mount.uuid, 'zeroaddress', ZERO, zeroAddressSchema);
    if (!entry) throw notFound();
    return { data: { roles: entry.roles } };
  }

  async write(req: RequestOf<typeof ssh.zeroAddressWrite>): Promise<ResponseOf<typeof ssh.zeroAddressWrite>> {
    const roles = [...new Set(req.body.roles)];
    if (roles.length === 0) throw invalidRequest('Missing roles');
    for (const role of roles) {
      if (!(await this.records.get(req.mount.uuid, 'role', role, sshRoleSchema)))
        throw invalidRequest(`Role ${JSON.stringify(role)} does not exist`);
    }
    await this.records.put(req.mount.uuid, 'zeroaddress', ZERO, { roles });
    return {};
  }

  async delete(
    req: RequestOf<typeof ssh.zeroAddressDelete>,
  ): Promise<ResponseOf<typeof ssh.zeroAddressDelete>> {
    await this.records.delete(req.mount.uuid, 'zeroaddress', ZERO);
    return {};
  }

  /** A deleted role leaves the list. */
  async removeRole(mountUuid: string, role: string): Promise<void> {
    const roles = await this.roles(mountUuid);
    if (!roles.includes(role)) return;
    const rest = roles.filter((r) => r !== role);
    if (rest.length === 0) await this.records.delete(mountUuid, 'zeroaddress', ZERO);
    else await this.records.put(mountUuid, 'zeroaddress', ZERO, { roles: rest });
  }
}
