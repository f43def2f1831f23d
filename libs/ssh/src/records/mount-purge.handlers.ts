import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { mountDisabled } from '@coffer/contracts';
import { OnBroadcast } from '@coffer/transport';
import type { z } from 'zod';
import { RecordRepository } from './record.repository';

/** A disabled ssh mount loses its read model: keys, CA, roles, OTPs (no logic). */
@Controller()
export class MountPurgeHandlers {
  constructor(private readonly repo: RecordRepository) {}

  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() payload: z.output<typeof mountDisabled.payload>): Promise<void> {
    if (payload.type === 'ssh') await this.repo.purgeMount(payload.uuid);
  }
}
