import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreMountTable,
  sysContracts,
  type CallerContext,
  type ResponseOf,
  type MountEntry,
  type RequestOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { MountsViewService } from './mounts-view.service';
import { MountsService } from './mounts.service';

@Controller()
export class MountsHandlers {
  constructor(
    private readonly mounts: MountsService,
    private readonly views: MountsViewService,
  ) {}

  @Handles(sysContracts.mountsList)
  list(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.mountsList>> {
    return this.views.list('secret', caller.namespace);
  }

  @Handles(sysContracts.mountRead)
  read(
    @Payload() req: RequestOf<typeof sysContracts.mountRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.mountRead>> {
    return this.views.read('secret', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.mountEnable)
  enable(
    @Payload() req: RequestOf<typeof sysContracts.mountEnable>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.mountEnable>> {
    return this.mounts.enable('secret', req.params.path, req.body, caller.namespace);
  }

  @Handles(sysContracts.mountDisable)
  disable(
    @Payload() req: RequestOf<typeof sysContracts.mountDisable>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.mountDisable>> {
    return this.mounts.disable('secret', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.mountTuneRead)
  tuneRead(
    @Payload() req: RequestOf<typeof sysContracts.mountTuneRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.mountTuneRead>> {
    return this.views.tuneRead('secret', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.mountTune)
  tune(
    @Payload() req: RequestOf<typeof sysContracts.mountTune>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.mountTune>> {
    return this.mounts.tune('secret', req.params.path, req.body, caller.namespace);
  }

  @Handles(sysContracts.authList)
  authList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.authList>> {
    return this.views.list('auth', caller.namespace);
  }

  @Handles(sysContracts.authRead)
  authRead(
    @Payload() req: RequestOf<typeof sysContracts.authRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.authRead>> {
    return this.views.read('auth', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.authEnable)
  authEnable(
    @Payload() req: RequestOf<typeof sysContracts.authEnable>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.authEnable>> {
    return this.mounts.enable('auth', req.params.path, req.body, caller.namespace);
  }

  @Handles(sysContracts.authDisable)
  authDisable(
    @Payload() req: RequestOf<typeof sysContracts.authDisable>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.authDisable>> {
    return this.mounts.disable('auth', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.authTuneRead)
  authTuneRead(
    @Payload() req: RequestOf<typeof sysContracts.authTuneRead>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.authTuneRead>> {
    return this.views.tuneRead('auth', req.params.path, caller.namespace);
  }

  @Handles(sysContracts.authTune)
  authTune(
    @Payload() req: RequestOf<typeof sysContracts.authTune>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.authTune>> {
    return this.mounts.tune('auth', req.params.path, req.body, caller.namespace);
  }

  @Handles(sysContracts.uiMounts)
  uiList(@Caller() caller: CallerContext): Promise<ResponseOf<typeof sysContracts.uiMounts>> {
    return this.views.uiList(caller);
  }

  @Handles(sysContracts.uiMount)
  uiRead(
    @Payload() req: RequestOf<typeof sysContracts.uiMount>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof sysContracts.uiMount>> {
    return this.views.uiRead(caller, req.params.path);
  }

  @Handles(coreMountTable)
  table(): Promise<{ mounts: MountEntry[]; revision: number }> {
    return this.mounts.table();
  }
}
