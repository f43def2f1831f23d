import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { engineLeaseContracts, mountDisabled } from '@coffer/contracts';
import { Handles, OnBroadcast } from '@coffer/transport';
import type { z } from 'zod';
import { RecordRepository } from '../records/record.repository';
import { LibraryService } from './library.service';

const leases = engineLeaseContracts('directory');
type LeaseCall = z.output<(typeof leases)['revoke']['request']>;

/** core-sys's lease calls for check-outs, and the purge of a disabled mount (no logic). */
@Controller()
export class DirectoryLeaseHandlers {
  constructor(
    private readonly library: LibraryService,
    private readonly repo: RecordRepository,
  ) {}

  @Handles(leases.renew)
  renew(@Payload() req: LeaseCall): Promise<{ ttl: number; max_ttl: number }> {
    return this.library.renew(req.mount.uuid, req.internal);
  }

  @Handles(leases.revoke)
  async revoke(@Payload() req: LeaseCall): Promise<Record<string, never>> {
    await this.library.revoke(req.mount.uuid, req.internal);
    return {};
  }

  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() payload: z.output<typeof mountDisabled.payload>): Promise<void> {
    if (payload.type === 'directory') await this.repo.purgeMount(payload.uuid);
  }
}
