import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { CallerContext, RequestOf, ResponseOf } from '@coffer/contracts';
import { cloudB } from '@coffer/contracts/cloud-b';
import { Caller, Handles } from '@coffer/transport';
import { CloudBConfigService } from './config/cloud-b-config.service';
import { CloudBCredsService } from './creds/cloud-b-creds.service';
import { CloudBRoleService } from './roles/cloud-b-role.service';

type Req<K extends keyof typeof cloudB> = RequestOf<(typeof cloudB)[K]>;
type Res<K extends keyof typeof cloudB> = Promise<ResponseOf<(typeof cloudB)[K]>>;

/** Transport handlers of cloud-b (no logic). */
@Controller()
export class CloudBHandlers {
  constructor(
    private readonly config: CloudBConfigService,
    private readonly roles: CloudBRoleService,
    private readonly credentials: CloudBCredsService,
  ) {}

  @Handles(cloudB.rootWrite) rootWrite(@Payload() req: Req<'rootWrite'>): Res<'rootWrite'> {
    return this.config.rootWrite(req);
  }
  @Handles(cloudB.rootRead) rootRead(@Payload() req: Req<'rootRead'>): Res<'rootRead'> {
    return this.config.rootRead(req);
  }
  @Handles(cloudB.rotateRoot) rotateRoot(@Payload() req: Req<'rotateRoot'>): Res<'rotateRoot'> {
    return this.config.rotateRoot(req);
  }
  @Handles(cloudB.leaseWrite) leaseWrite(@Payload() req: Req<'leaseWrite'>): Res<'leaseWrite'> {
    return this.config.leaseWrite(req);
  }
  @Handles(cloudB.leaseRead) leaseRead(@Payload() req: Req<'leaseRead'>): Res<'leaseRead'> {
    return this.config.leaseRead(req);
  }
  @Handles(cloudB.roleList) roleList(@Payload() req: Req<'roleList'>): Res<'roleList'> {
    return this.roles.list(req);
  }
  @Handles(cloudB.roleWrite) roleWrite(@Payload() req: Req<'roleWrite'>): Res<'roleWrite'> {
    return this.roles.write(req);
  }
  @Handles(cloudB.roleRead) roleRead(@Payload() req: Req<'roleRead'>): Res<'roleRead'> {
    return this.roles.read(req);
  }
  @Handles(cloudB.roleDelete) roleDelete(@Payload() req: Req<'roleDelete'>): Res<'roleDelete'> {
    return this.roles.delete(req);
  }
  @Handles(cloudB.creds) creds(@Payload() req: Req<'creds'>, @Caller() caller: CallerContext): Res<'creds'> {
    return this.credentials.issue(req, caller, 'creds');
  }
  @Handles(cloudB.sts) sts(@Payload() req: Req<'sts'>, @Caller() caller: CallerContext): Res<'sts'> {
    return this.credentials.issue(req, caller, 'sts');
  }
}
