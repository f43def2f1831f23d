import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { mountDisabled, tokenRevoked } from '@coffer/contracts';
import { OnBroadcast } from '@coffer/transport';
import type { z } from 'zod';
import { CubbyholeLifecycleService } from '../flat/cubbyhole-lifecycle.service';
import { MountPurgeService } from './mount-purge.service';

/** Broadcasts every kv replica receives (no logic). */
@Controller()
export class KvBroadcastHandlers {
  constructor(
    private readonly cubbyholes: CubbyholeLifecycleService,
    private readonly mounts: MountPurgeService,
  ) {}

  @OnBroadcast(tokenRevoked)
  tokenRevoked(@Payload() payload: z.output<typeof tokenRevoked.payload>): Promise<void> {
    return this.cubbyholes.tokensRevoked(payload.tokenRefs);
  }

  @OnBroadcast(mountDisabled)
  mountDisabled(@Payload() payload: z.output<typeof mountDisabled.payload>): Promise<void> {
    return this.mounts.mountDisabled(payload);
  }
}
