import { Controller, Inject, Injectable, Logger } from '@nestjs/common';
import {
  replicationModes,
  replicationModesChanged,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import type { ServiceRuntime } from '@coffer/event-store';
import { Handles } from '@coffer/transport';
import { REPLICATION_RUNTIME } from '../replication.di';
import { ReplicationStateService } from './replication-state.service';

/** This cluster's place in both replication sets, as the gateways need it. */
@Injectable()
export class ReplicationModesService {
  private readonly logger = new Logger('ReplicationModes');

  constructor(
    private readonly states: ReplicationStateService,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {
    // every accepted command: the gateways drop their cached modes at once
    states.onChange(() => {
      void this.modes()
        .then((modes) => this.runtime.transport.publish(replicationModesChanged, modes))
        .catch((error: unknown) =>
          this.logger.warn(
            `publishing the replication modes failed: ${error instanceof Error ? error.message : 'unknown'}`,
          ),
        );
    });
  }

  async modes(): Promise<ReplicationModes> {
    const dr = await this.states.loadPublic('dr');
    const performance = await this.states.loadPublic('performance');
    return {
      dr: dr.state,
      performance: performance.state,
      performancePrimaryApiAddr:
        performance.state === 'secondary' ? (performance.link?.primaryApiAddr ?? '') : '',
    };
  }
}

/** replication.modes (no logic). */
@Controller()
export class ReplicationModesHandlers {
  constructor(private readonly modes: ReplicationModesService) {}

  @Handles(replicationModes)
  get(): Promise<ReplicationModes> {
    return this.modes.modes();
  }
}
