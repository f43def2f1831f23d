import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreSysReplicaFold,
  type ReplicaFoldRequest,
  type ReplicaFoldResponse,
} from '@coffer/contracts/replication';
import { Handles } from '@coffer/transport';
import { ReplicaFoldService } from './replica-fold.service';

@Controller()
export class ReplicaFoldHandlers {
  constructor(private readonly folds: ReplicaFoldService) {}

  @Handles(coreSysReplicaFold)
  fold(@Payload() req: ReplicaFoldRequest): Promise<ReplicaFoldResponse> {
    return req.op === 'position' ? this.folds.position() : this.folds.fold(req.mode, req.events, req.through);
  }
}
