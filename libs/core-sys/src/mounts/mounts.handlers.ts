import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreMountTable,
  sysContracts,
  type CallerContext,
  type EngineResponse,
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
  list(): Promise<EngineResponse> {
    return this.views.list('secret');
  }

  @Handles(sysContracts.mountRead)
  read(@Payload() req: RequestOf<typeof sysContracts.mountRead>): Promise<EngineResponse> {
    return this.views.read('secret', req.params.path);
  }

  @Handles(sysContracts.mountEnable)
  enable(@Payload() req: RequestOf<typeof sysContracts.mountEnable>): Promise<EngineResponse> {
    return this.mounts.enable('secret', req.params.path, req.body);
  }

  @Handles(sysContracts.mountDisable)
  disable(@Payload() req: RequestOf<typeof sysContracts.mountDisable>): Promise<EngineResponse> {
    return this.mounts.disable('secret', req.params.path);
  }

  @Handles(sysContracts.mountTuneRead)
  tuneRead(@Payload() req: RequestOf<typeof sysContracts.mountTuneRead>): Promise<EngineResponse> {
    return this.views.tuneRead('secret', req.params.path);
  }

  @Handles(sysContracts.mountTune)
  tune(@Payload() req: RequestOf<typeof sysContracts.mountTune>): Promise<EngineResponse> {
    return this.mounts.tune('secret', req.params.path, req.body);
  }

  @Handles(sysContracts.authList)
  authList(): Promise<EngineResponse> {
    return this.views.list('auth');
  }

  @Handles(sysContracts.authRead)
  authRead(@Payload() req: RequestOf<typeof sysContracts.authRead>): Promise<EngineResponse> {
    return this.views.read('auth', req.params.path);
  }

  @Handles(sysContracts.authEnable)
  authEnable(@Payload() req: RequestOf<typeof sysContracts.authEnable>): Promise<EngineResponse> {
    return this.mounts.enable('auth', req.params.path, req.body);
  }

  @Handles(sysContracts.authDisable)
  authDisable(@Payload() req: RequestOf<typeof sysContracts.authDisable>): Promise<EngineResponse> {
    return this.mounts.disable('auth', req.params.path);
  }

  @Handles(sysContracts.authTuneRead)
  authTuneRead(@Payload() req: RequestOf<typeof sysContracts.authTuneRead>): Promise<EngineResponse> {
    return this.views.tuneRead('auth', req.params.path);
  }

  @Handles(sysContracts.authTune)
  authTune(@Payload() req: RequestOf<typeof sysContracts.authTune>): Promise<EngineResponse> {
    return this.mounts.tune('auth', req.params.path, req.body);
  }

  @Handles(sysContracts.uiMounts)
  uiList(@Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.views.uiList(caller);
  }

  @Handles(sysContracts.uiMount)
  uiRead(
    @Payload() req: RequestOf<typeof sysContracts.uiMount>,
    @Caller() caller: CallerContext,
  ): Promise<EngineResponse> {
    return this.views.uiRead(caller, req.params.path);
  }

  @Handles(coreMountTable)
  table(): Promise<{ mounts: MountEntry[]; revision: number }> {
    return this.mounts.table();
  }
}
