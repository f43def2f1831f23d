import { Injectable } from '@nestjs/common';
import type { RequestOf, ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { RoleService } from '../roles/role.service';
import { parseIp, roleCoversIp } from './ip-policy';
import { ZeroAddressService } from './zero-address.service';

/** lookup: the roles whose CIDR blocks contain an IP, and the zero-address roles. */
@Injectable()
export class LookupService {
  constructor(
    private readonly roles: RoleService,
    private readonly zeroAddress: ZeroAddressService,
  ) {}

  async lookup(req: RequestOf<typeof ssh.lookup>): Promise<ResponseOf<typeof ssh.lookup>> {
    const ip = parseIp(req.body.ip);
    const matching = (await this.roles.all(req.mount.uuid))
      .filter(({ value }) => value.key_type !== 'ca' && roleCoversIp(value, ip))
      .map(({ name }) => name);
    const zero = await this.zeroAddress.roles(req.mount.uuid);
    return { data: { roles: [...new Set([...matching, ...zero])] } };
  }
}
