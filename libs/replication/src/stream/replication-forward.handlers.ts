import { Controller } from '@nestjs/common';
import { replicationForward, type ForwardedAnswer, type ForwardedWrite } from '@coffer/contracts/replication';
import { Payload } from '@nestjs/microservices';
import { Handles } from '@coffer/transport';
import { ReplicationSupervisor } from './replication-supervisor';

/** replication.forward: the gateway's forwarded writes, to the performance primary (no logic). */
@Controller()
export class ReplicationForwardHandlers {
  constructor(private readonly supervisor: ReplicationSupervisor) {}

  @Handles(replicationForward)
  forward(@Payload() request: ForwardedWrite): Promise<ForwardedAnswer> {
    return this.supervisor.forward(request);
  }
}
