import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  replicaOpenContract,
  type ReplicaOpenRequest,
  type ReplicaOpenResponse,
} from '@coffer/contracts/replication';
import { Handles } from '@coffer/transport';
import { ReplicaOpenService } from './replica-open.service';

/** replication.replica.open: the services' history asks for their replica log's rows opened (no logic). */
@Controller()
export class ReplicaOpenHandlers {
  constructor(private readonly service: ReplicaOpenService) {}

  @Handles(replicaOpenContract)
  open(@Payload() request: ReplicaOpenRequest): Promise<ReplicaOpenResponse> {
    return this.service.open(request);
  }
}
