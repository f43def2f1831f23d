import { Inject, Injectable } from '@nestjs/common';
import type { ReplicaOpenRequest, ReplicaOpenResponse } from '@coffer/contracts/replication';
import { openReplicaRows, type ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';
import { ReplicaKeyringsRepository } from './replica-keyrings.repository';

/**
 * `replication.replica.open`: a service's history on a secondary needs the primary's rows of its
 * replica log, sealed by keyrings only this service holds (received with the stream, kept sealed
 * by the cluster's own barrier). It opens the rows it reads from that log itself, by WAL index.
 */
@Injectable()
export class ReplicaOpenService {
  constructor(
    private readonly keyrings: ReplicaKeyringsRepository,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async open(req: ReplicaOpenRequest): Promise<ReplicaOpenResponse> {
    return openReplicaRows(this.runtime.db, req, await this.keyrings.opener());
  }
}
