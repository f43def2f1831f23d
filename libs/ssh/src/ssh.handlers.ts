import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineHistoryState,
  type CallerContext,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { ssh } from '@coffer/contracts/ssh';
import { Caller, Handles } from '@coffer/transport';
import { LookupService } from './access/lookup.service';
import { ZeroAddressService } from './access/zero-address.service';
import { CaService } from './ca/ca.service';
import { CredsService } from './creds/creds.service';
import { KeyService } from './keys/key.service';
import { OtpService } from './otp/otp.service';
import { RoleService } from './roles/role.service';
import { SshHistoryService } from './records/ssh-history.service';
import { SignService } from './sign/sign.service';

type Req<K extends keyof typeof ssh> = RequestOf<(typeof ssh)[K]>;
type Res<K extends keyof typeof ssh> = Promise<ResponseOf<(typeof ssh)[K]>>;

/** Transport handlers of roles, keys and config/zeroaddress (no logic). */
@Controller()
export class SshSettingsHandlers {
  constructor(
    private readonly roles: RoleService,
    private readonly keys: KeyService,
    private readonly zeroAddress: ZeroAddressService,
  ) {}

  @Handles(ssh.roleWrite) roleWrite(@Payload() req: Req<'roleWrite'>): Res<'roleWrite'> {
    return this.roles.write(req);
  }
  @Handles(ssh.roleRead) roleRead(@Payload() req: Req<'roleRead'>): Res<'roleRead'> {
    return this.roles.read(req);
  }
  @Handles(ssh.roleDelete) roleDelete(@Payload() req: Req<'roleDelete'>): Res<'roleDelete'> {
    return this.roles.delete(req);
  }
  @Handles(ssh.roleList) roleList(@Payload() req: Req<'roleList'>): Res<'roleList'> {
    return this.roles.list(req);
  }
  @Handles(ssh.keyWrite) keyWrite(@Payload() req: Req<'keyWrite'>): Res<'keyWrite'> {
    return this.keys.write(req);
  }
  @Handles(ssh.keyDelete) keyDelete(@Payload() req: Req<'keyDelete'>): Res<'keyDelete'> {
    return this.keys.delete(req);
  }
  @Handles(ssh.zeroAddressRead) zeroRead(@Payload() req: Req<'zeroAddressRead'>): Res<'zeroAddressRead'> {
    return this.zeroAddress.read(req);
  }
  @Handles(ssh.zeroAddressWrite) zeroWrite(@Payload() req: Req<'zeroAddressWrite'>): Res<'zeroAddressWrite'> {
    return this.zeroAddress.write(req);
  }
  @Handles(ssh.zeroAddressDelete) zeroDelete(
    @Payload() req: Req<'zeroAddressDelete'>,
  ): Res<'zeroAddressDelete'> {
    return this.zeroAddress.delete(req);
  }
}

/** Transport handlers of the CA and signing (no logic). */
@Controller()
export class SshCaHandlers {
  constructor(
    private readonly ca: CaService,
    private readonly signer: SignService,
  ) {}

  @Handles(ssh.caWrite) caWrite(@Payload() req: Req<'caWrite'>): Res<'caWrite'> {
    return this.ca.write(req);
  }
  @Handles(ssh.caRead) caRead(@Payload() req: Req<'caRead'>): Res<'caRead'> {
    return this.ca.read(req);
  }
  @Handles(ssh.caDelete) caDelete(@Payload() req: Req<'caDelete'>): Res<'caDelete'> {
    return this.ca.delete(req);
  }
  @Handles(ssh.publicKey) publicKey(@Payload() req: Req<'publicKey'>): Res<'publicKey'> {
    return this.ca.publicKey(req);
  }
  @Handles(ssh.sign) sign(@Payload() req: Req<'sign'>, @Caller() caller: CallerContext): Res<'sign'> {
    return this.signer.sign(req, caller);
  }
}

/** Transport handlers of creds, verify and lookup (no logic). */
@Controller()
export class SshCredsHandlers {
  constructor(
    private readonly credentials: CredsService,
    private readonly otps: OtpService,
    private readonly lookups: LookupService,
  ) {}

  @Handles(ssh.creds) creds(@Payload() req: Req<'creds'>): Res<'creds'> {
    return this.credentials.create(req);
  }
  @Handles(ssh.verify) verify(@Payload() req: Req<'verify'>): Res<'verify'> {
    return this.otps.verify(req);
  }
  @Handles(ssh.lookup) lookup(@Payload() req: Req<'lookup'>): Res<'lookup'> {
    return this.lookups.lookup(req);
  }
}

/** ssh.history.state: roles, roles/<name>, config/ca and keys/<name> at an instant, asked by core-sys's sys/history/state (no logic). */
@Controller()
export class SshHistoryHandlers {
  constructor(private readonly history: SshHistoryService) {}

  @Handles(engineHistoryState('ssh'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.history.state(req);
  }
}
