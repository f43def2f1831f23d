import { Injectable } from '@nestjs/common';
import type { EngineHistoryStateRequest, EngineHistoryStateResponse } from '@coffer/contracts';
import { RoleHistoryService } from '../roles/role-history.service';
import { SettingsHistoryService } from '../settings/settings-history.service';

/** `pki.history.state`: the settings paths to their history, everything else to the roles'. */
@Injectable()
export class PkiHistoryService {
  constructor(
    private readonly roles: RoleHistoryService,
    private readonly settings: SettingsHistoryService,
  ) {}

  state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.settings.handles(req.path) ? this.settings.state(req) : this.roles.state(req);
  }
}
