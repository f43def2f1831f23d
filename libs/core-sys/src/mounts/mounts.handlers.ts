import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreMountTable,
  sysContracts,
  type CallerContext,
  type EngineRequest,
  type EngineResponse,
  type MountEntry,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { MountsViewService } from './mounts-view.service';
import { MountsService } from './mounts.service';

const pathOf = (req: EngineRequest): string => req.params['path'] ?? '';

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
  read(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.views.read('secret', pathOf(req));
  }

  @Handles(sysContracts.mountEnable)
  enable(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.enable('secret', pathOf(req), req.body);
  }

  @Handles(sysContracts.mountDisable)
  disable(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.disable('secret', pathOf(req));
  }

  @Handles(sysContracts.mountTuneRead)
  tuneRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.views.tuneRead('secret', pathOf(req));
  }

  @Handles(sysContracts.mountTune)
  tune(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.tune('secret', pathOf(req), req.body);
  }

  @Handles(sysContracts.authList)
  authList(): Promise<EngineResponse> {
    return this.views.list('auth');
  }

  @Handles(sysContracts.authRead)
  authRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.views.read('auth', pathOf(req));
  }

  @Handles(sysContracts.authEnable)
  authEnable(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.enable('auth', pathOf(req), req.body);
  }

  @Handles(sysContracts.authDisable)
  authDisable(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.disable('auth', pathOf(req));
  }

  @Handles(sysContracts.authTuneRead)
  authTuneRead(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.views.tuneRead('auth', pathOf(req));
  }

  @Handles(sysContracts.authTune)
  authTune(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.mounts.tune('auth', pathOf(req), req.body);
  }

  @Handles(sysContracts.uiMounts)
  uiList(@Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.views.uiList(caller);
  }

  @Handles(sysContracts.uiMount)
  uiRead(@Payload() req: EngineRequest, @Caller() caller: CallerContext): Promise<EngineResponse> {
    return this.views.uiRead(caller, pathOf(req));
  }

  @Handles(coreMountTable)
  table(): Promise<{ mounts: MountEntry[]; revision: number }> {
    return this.mounts.table();
  }
}
