import { Injectable } from '@nestjs/common';
import type { EngineHistoryStateRequest, EngineHistoryStateResponse } from '@coffer/contracts';
import { SshCaHistoryService } from '../ca/ssh-ca-history.service';
import { SshRoleHistoryService } from '../roles/ssh-role-history.service';

/** `ssh.history.state`: config/ca and keys/<name> to their history, everything else to the roles'. */
@Injectable()
export class SshHistoryService {
  constructor(
    private readonly roles: SshRoleHistoryService,
    private readonly ca: SshCaHistoryService,
  ) {}

  state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.ca.handles(req.path) ? this.ca.state(req) : this.roles.state(req);
  }
}
