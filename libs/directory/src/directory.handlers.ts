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
import { directory } from '@coffer/contracts/directory';
import { Caller, Handles } from '@coffer/transport';
import { ConfigService } from './config/config.service';
import { DirectoryHistoryService } from './history/directory-history.service';
import { LibraryService } from './library/library.service';
import { RoleService } from './roles/role.service';

type Req<K extends keyof typeof directory> = RequestOf<(typeof directory)[K]>;
type Res<K extends keyof typeof directory> = Promise<ResponseOf<(typeof directory)[K]>>;

/** Transport handlers of config, rotate-root, roles, creds and rotate-role (no logic). */
@Controller()
export class DirectoryRoleHandlers {
  constructor(
    private readonly config: ConfigService,
    private readonly roles: RoleService,
  ) {}

  @Handles(directory.configWrite) configWrite(@Payload() req: Req<'configWrite'>): Res<'configWrite'> {
    return this.config.write(req);
  }
  @Handles(directory.configRead) configRead(@Payload() req: Req<'configRead'>): Res<'configRead'> {
    return this.config.read(req);
  }
  @Handles(directory.configDelete) configDelete(@Payload() req: Req<'configDelete'>): Res<'configDelete'> {
    return this.config.delete(req);
  }
  @Handles(directory.rotateRoot) rotateRoot(@Payload() req: Req<'rotateRoot'>): Res<'rotateRoot'> {
    return this.config.rotateRoot(req);
  }
  @Handles(directory.roleList) roleList(@Payload() req: Req<'roleList'>): Res<'roleList'> {
    return this.roles.list(req);
  }
  @Handles(directory.roleWrite) roleWrite(@Payload() req: Req<'roleWrite'>): Res<'roleWrite'> {
    return this.roles.write(req);
  }
  @Handles(directory.roleRead) roleRead(@Payload() req: Req<'roleRead'>): Res<'roleRead'> {
    return this.roles.read(req);
  }
  @Handles(directory.roleDelete) roleDelete(@Payload() req: Req<'roleDelete'>): Res<'roleDelete'> {
    return this.roles.delete(req);
  }
  @Handles(directory.creds) creds(@Payload() req: Req<'creds'>): Res<'creds'> {
    return this.roles.creds(req);
  }
  @Handles(directory.rotateRole) rotateRole(@Payload() req: Req<'rotateRole'>): Res<'rotateRole'> {
    return this.roles.rotateRole(req);
  }
}

/** Transport handlers of library sets and check-outs (no logic). */
@Controller()
export class DirectoryLibraryHandlers {
  constructor(private readonly library: LibraryService) {}

  @Handles(directory.setList) setList(@Payload() req: Req<'setList'>): Res<'setList'> {
    return this.library.list(req);
  }
  @Handles(directory.setWrite) setWrite(@Payload() req: Req<'setWrite'>): Res<'setWrite'> {
    return this.library.write(req);
  }
  @Handles(directory.setRead) setRead(@Payload() req: Req<'setRead'>): Res<'setRead'> {
    return this.library.read(req);
  }
  @Handles(directory.setDelete) setDelete(@Payload() req: Req<'setDelete'>): Res<'setDelete'> {
    return this.library.delete(req);
  }
  @Handles(directory.checkOut) checkOut(
    @Payload() req: Req<'checkOut'>,
    @Caller() caller: CallerContext,
  ): Res<'checkOut'> {
    return this.library.checkOut(req, caller);
  }
  @Handles(directory.checkIn) checkIn(
    @Payload() req: Req<'checkIn'>,
    @Caller() caller: CallerContext,
  ): Res<'checkIn'> {
    return this.library.checkIn(req, caller, false);
  }
  @Handles(directory.manageCheckIn) manageCheckIn(
    @Payload() req: Req<'manageCheckIn'>,
    @Caller() caller: CallerContext,
  ): Res<'manageCheckIn'> {
    return this.library.checkIn(req, caller, true);
  }
  @Handles(directory.status) status(@Payload() req: Req<'status'>): Res<'status'> {
    return this.library.status(req);
  }
}

/** directory.history.state: config, roles and library sets at an instant, asked by core-sys's sys/history/state (no logic). */
@Controller()
export class DirectoryHistoryHandlers {
  constructor(private readonly history: DirectoryHistoryService) {}

  @Handles(engineHistoryState('directory'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.history.state(req);
  }
}
