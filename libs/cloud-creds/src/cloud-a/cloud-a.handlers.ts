import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { RequestOf, ResponseOf } from '@coffer/contracts';
import { cloudA } from '@coffer/contracts/cloud-a';
import { Handles } from '@coffer/transport';
import { CloudAConfigService } from './config/cloud-a-config.service';
import { CloudACredsService } from './creds/cloud-a-creds.service';
import { CloudARoleService } from './roles/cloud-a-role.service';

type Req<K extends keyof typeof cloudA> = RequestOf<(typeof cloudA)[K]>;
type Res<K extends keyof typeof cloudA> = Promise<ResponseOf<(typeof cloudA)[K]>>;

/** Transport handlers of cloud-a's config, roles and creds (no logic). */
@Controller()
export class CloudAHandlers {
  constructor(
    private readonly config: CloudAConfigService,
    private readonly roles: CloudARoleService,
    private readonly credentials: CloudACredsService,
  ) {}

  @Handles(cloudA.configWrite) configWrite(@Payload() req: Req<'configWrite'>): Res<'configWrite'> {
    return this.config.write(req);
  }
  @Handles(cloudA.configRead) configRead(@Payload() req: Req<'configRead'>): Res<'configRead'> {
    return this.config.read(req);
  }
  @Handles(cloudA.configDelete) configDelete(@Payload() req: Req<'configDelete'>): Res<'configDelete'> {
    return this.config.delete(req);
  }
  @Handles(cloudA.roleList) roleList(@Payload() req: Req<'roleList'>): Res<'roleList'> {
    return this.roles.list(req);
  }
  @Handles(cloudA.roleWrite) roleWrite(@Payload() req: Req<'roleWrite'>): Res<'roleWrite'> {
    return this.roles.write(req);
  }
  @Handles(cloudA.roleRead) roleRead(@Payload() req: Req<'roleRead'>): Res<'roleRead'> {
    return this.roles.read(req);
  }
  @Handles(cloudA.roleDelete) roleDelete(@Payload() req: Req<'roleDelete'>): Res<'roleDelete'> {
    return this.roles.delete(req);
  }
  @Handles(cloudA.creds) creds(@Payload() req: Req<'creds'>): Res<'creds'> {
    return this.credentials.creds(req);
  }
}
