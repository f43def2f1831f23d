import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { engineLeaseContracts } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import type { z } from 'zod';
import { CredsService } from './creds.service';

const leases = engineLeaseContracts('ssh');
type LeaseCall = z.output<(typeof leases)['revoke']['request']>;

/** Lease calls of core-sys for creds leases (no logic). */
@Controller()
export class SshLeaseHandlers {
  constructor(private readonly creds: CredsService) {}

  /** Renewal grants the requested increment (0: the lease's own TTL); core-sys caps it. */
  @Handles(leases.renew)
  renew(@Payload() req: LeaseCall): Promise<{ ttl: number; max_ttl: number }> {
    return Promise.resolve({ ttl: req.increment, max_ttl: 0 });
  }

  @Handles(leases.revoke)
  async revoke(@Payload() req: LeaseCall): Promise<Record<string, never>> {
    await this.creds.revoke(req.mount.uuid, req.internal);
    return {};
  }
}
