import { Injectable } from '@nestjs/common';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { ssh } from '@coffer/contracts/ssh';
import { checkIp, credsUsername, parseIp } from '../access/ip-policy';
import { ZeroAddressService } from '../access/zero-address.service';
import { KeyService } from '../keys/key.service';
import { OtpService } from '../otp/otp.service';
import { RoleService } from '../roles/role.service';
import type { SshRole } from '../roles/role.model';
import { authorizedKeyLine, generateDynamicKey } from './dynamic-keys';
import { authorizedKeysPath } from './install-script';
import { runInstallScript } from './host-session';
import { leaseInternalSchema, type DynamicLease } from './lease-internal';

type CredsResponse = ResponseOf<typeof ssh.creds>;

/** creds/:name: a one-time password (otp roles) or a key installed on the host (dynamic roles). */
@Injectable()
export class CredsService {
  constructor(
    private readonly roles: RoleService,
    private readonly zeroAddress: ZeroAddressService,
    private readonly otps: OtpService,
    private readonly keys: KeyService,
  ) {}

  async create(req: RequestOf<typeof ssh.creds>): Promise<CredsResponse> {
    const roleName = req.params.name;
    if (req.body.ip === '') throw invalidRequest('Missing ip');
    const role = await this.roles.find(req.mount.uuid, roleName);
    if (!role) throw invalidRequest(`Role ${JSON.stringify(roleName)} not found`);
    if (role.key_type === 'ca') throw invalidRequest('creds are not issued for ca roles: use sign');
    const username = credsUsername(req.body.username, role);
    const ip = parseIp(req.body.ip);
    checkIp(roleName, role, ip, await this.zeroAddress.roles(req.mount.uuid));
    if (role.key_type === 'otp') {
      const { otp, hash } = await this.otps.issue(req.mount.uuid, { username, ip, roleName });
      return {
        data: { key_type: 'otp', key: otp, username, ip, port: role.port },
        secret: { renewable: false, internal: { kind: 'otp', hash } },
      };
    }
    return this.dynamic(req.mount.uuid, role, username, ip);
  }

  /** Generates a key, installs it on the host as the admin user, and leases it. */
  private async dynamic(
    mountUuid: string,
    role: SshRole,
    username: string,
    ip: string,
  ): Promise<CredsResponse> {
    const adminKey = await this.keys.privateKey(mountUuid, role.key);
    const pair = generateDynamicKey(role.key_bits);
    const keyLine = authorizedKeyLine(role.key_option_specs, pair.publicKey);
    await runInstallScript(
      { host: ip, port: role.port, username: role.admin_user, privateKey: adminKey },
      role.install_script,
      'install',
      keyLine,
      authorizedKeysPath(username),
    );
    const internal: DynamicLease = {
      kind: 'dynamic',
      key_name: role.key,
      admin_user: role.admin_user,
      username,
      ip,
      port: role.port,
      install_script: role.install_script,
      key_line: keyLine,
    };
    return {
      data: {
        key_type: 'dynamic',
        key: pair.privateKey,
        username,
        ip,
        port: role.port,
        admin_user: role.admin_user,
        allowed_users: role.allowed_users,
        cidr_list: role.cidr_list,
        default_user: role.default_user,
        exclude_cidr_list: role.exclude_cidr_list,
        install_script: role.install_script,
        key_bits: role.key_bits,
        key_option_specs: role.key_option_specs,
      },
      secret: { renewable: true, internal },
    };
  }

  /** Lease revocation: the OTP is deleted, the dynamic key removed from the host. Idempotent. */
  async revoke(mountUuid: string, internal: unknown): Promise<void> {
    const lease = leaseInternalSchema.parse(internal);
    if (lease.kind === 'otp') return this.otps.revoke(mountUuid, lease.hash);
    const adminKey = await this.keys.privateKey(mountUuid, lease.key_name);
    await runInstallScript(
      { host: lease.ip, port: lease.port, username: lease.admin_user, privateKey: adminKey },
      lease.install_script,
      'uninstall',
      lease.key_line,
      authorizedKeysPath(lease.username),
    );
  }
}
