import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineHistoryState,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { Handles } from '@coffer/transport';
import { PkiHistoryService } from '../shared/pki-history.service';
import { RoleService } from './role.service';

/** pki/roles (no logic). */
@Controller()
export class RoleHandlers {
  constructor(private readonly roles: RoleService) {}

  @Handles(pki.roleWrite)
  write(@Payload() req: RequestOf<typeof pki.roleWrite>): Promise<ResponseOf<typeof pki.roleWrite>> {
    return this.roles.write(req);
  }

  @Handles(pki.roleRead)
  read(@Payload() req: RequestOf<typeof pki.roleRead>): Promise<ResponseOf<typeof pki.roleRead>> {
    return this.roles.read(req);
  }

  @Handles(pki.roleDelete)
  delete(@Payload() req: RequestOf<typeof pki.roleDelete>): Promise<ResponseOf<typeof pki.roleDelete>> {
    return this.roles.delete(req);
  }

  @Handles(pki.roleList)
  list(@Payload() req: RequestOf<typeof pki.roleList>): Promise<ResponseOf<typeof pki.roleList>> {
    return this.roles.list(req);
  }
}

/** pki.history.state: roles, roles/<name>, config/urls and config/crl at an instant, asked by core-sys's sys/history/state (no logic). */
@Controller()
export class RoleHistoryHandlers {
  constructor(private readonly history: PkiHistoryService) {}

  @Handles(engineHistoryState('pki'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.history.state(req);
  }
}
