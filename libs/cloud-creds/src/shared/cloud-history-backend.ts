import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineHistoryState,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';

/**
 * A mount type's history of its paths. The service answers one subject (`cloud-creds.history.state`)
 * for both mount types, so this dispatcher hands each question to the backend of the mount's type.
 */
export interface CloudHistoryBackend {
  readonly mountType: string;
  state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse>;
}

/** Every mount type's history backend (a multi-provider built by the module from the parts). */
export const CLOUD_HISTORY_BACKENDS = Symbol('CLOUD_HISTORY_BACKENDS');

/** cloud-creds.history.state, asked by core-sys's sys/history/state (no logic). */
@Controller()
export class CloudCredsHistoryHandlers {
  constructor(@Inject(CLOUD_HISTORY_BACKENDS) private readonly backends: readonly CloudHistoryBackend[]) {}

  @Handles(engineHistoryState('cloud-creds'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const backend = this.backends.find((b) => b.mountType === req.mount_type);
    if (!backend) throw invalidRequest(`no history of the paths of ${req.mount_type} mounts`);
    return backend.state(req);
  }
}
