import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DomainError, engineLeaseContracts, mountDisabled, type MountInfo } from '@coffer/contracts';
import { Handles, OnBroadcast } from '@coffer/transport';
import type { z } from 'zod';

/**
 * A mount type's lease calls. The service has one pair of lease subjects (`cloud-creds.lease.*`)
 * for both mount types, so this dispatcher hands each call to the backend of the lease's mount type.
 */
export interface CloudLeaseBackend {
  readonly mountType: string;
  renew(mount: MountInfo, internal: unknown, increment: number): Promise<{ ttl: number; max_ttl: number }>;
  /** idempotent: core-sys retries until it succeeds, then marks the lease irrevocable */
  revoke(mount: MountInfo, internal: unknown): Promise<void>;
  /** a disabled mount (its leases were revoked first) */
  purgeMount(mountUuid: string): Promise<void>;
}

/** Every mount type's backend (a multi-provider built by the module from the parts). */
export const CLOUD_LEASE_BACKENDS = Symbol('CLOUD_LEASE_BACKENDS');

const leases = engineLeaseContracts('cloud-creds');
type LeaseCall = z.output<(typeof leases)['revoke']['request']>;

/** core-sys's lease calls and the purge of a disabled mount (no logic). */
@Controller()
export class CloudCredsLeaseHandlers {
  constructor(@Inject(CLOUD_LEASE_BACKENDS) private readonly backends: readonly CloudLeaseBackend[]) {}

  private backend(type: string): CloudLeaseBackend {
    const backend = this.backends.find((b) => b.mountType === type);
    if (!backend) throw new DomainError('internal', `no lease backend for mount type ${type}`);
    return backend;
  }

  @Handles(leases.renew)
  renew(@Payload() req: LeaseCall): Promise<{ ttl: number; max_ttl: number }> {
    return this.backend(req.mount.type).renew(req.mount, req.internal, req.increment);
  }

  @Handles(leases.revoke)
  async revoke(@Payload() req: LeaseCall): Promise<Record<string, never>> {
    await this.backend(req.mount.type).revoke(req.mount, req.internal);
    return {};
  }

  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() payload: z.output<typeof mountDisabled.payload>): Promise<void> {
    await this.backends.find((b) => b.mountType === payload.type)?.purgeMount(payload.uuid);
  }
}
