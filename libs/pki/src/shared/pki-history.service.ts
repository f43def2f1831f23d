import { Injectable } from '@nestjs/common';
import type { EngineHistoryStateRequest, EngineHistoryStateResponse } from '@coffer/contracts';
import { IssuerHistoryService } from '../issuer/issuer-history.service';
import { RoleHistoryService } from '../roles/role-history.service';
import { SettingsHistoryService } from '../settings/settings-history.service';

/** `pki.history.state`: the settings and CA paths to their histories, everything else to the roles'. */
@Injectable()
export class PkiHistoryService {
  constructor(
    private readonly roles: RoleHistoryService,
    private readonly settings: SettingsHistoryService,
    private readonly issuer: IssuerHistoryService,
  ) {}

  state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    if (this.settings.handles(req.path)) return this.settings.state(req);
    if (this.issuer.handles(req.path)) return this.issuer.state(req);
    return this.roles.state(req);
  }
}
