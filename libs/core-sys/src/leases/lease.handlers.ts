import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreLeaseRegister,
  leaseContracts,
  mountDisabled,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Handles, OnBroadcast, OptionalCaller } from '@coffer/transport';
import type { z } from 'zod';
import { LeaseService } from './lease.service';

type Req<K extends keyof typeof leaseContracts> = RequestOf<(typeof leaseContracts)[K]>;
type Res<K extends keyof typeof leaseContracts> = ResponseOf<(typeof leaseContracts)[K]>;

/** sys/leases/* (and the legacy sys/renew, sys/revoke*), and lease registration for the gateway. */
@Controller()
export class LeaseHandlers {
  constructor(private readonly leases: LeaseService) {}

  @Handles(coreLeaseRegister)
  register(
    @Payload() req: ContractRequest<typeof coreLeaseRegister>,
    @OptionalCaller() caller: CallerContext | undefined,
  ): Promise<ContractResponse<typeof coreLeaseRegister>> {
    return this.leases.register(req, caller);
  }

  @Handles(leaseContracts.lookup)
  lookup(@Payload() req: Req<'lookup'>): Promise<Res<'lookup'>> {
    return this.leases.lookup(req);
  }

  @Handles(leaseContracts.lookupList)
  lookupList(@Payload() req: Req<'lookupList'>): Promise<Res<'lookupList'>> {
    return this.leases.lookupList(req);
  }

  @Handles(leaseContracts.renew)
  renew(@Payload() req: Req<'renew'>): Promise<Res<'renew'>> {
    return this.leases.renew(req);
  }

  @Handles(leaseContracts.revoke)
  revoke(@Payload() req: Req<'revoke'>): Promise<Res<'revoke'>> {
    return this.leases.revoke(req);
  }

  @Handles(leaseContracts.revokePrefix)
  revokePrefix(@Payload() req: Req<'revokePrefix'>): Promise<Res<'revokePrefix'>> {
    return this.leases.revokePrefix(req);
  }

  @Handles(leaseContracts.revokeForce)
  revokeForce(@Payload() req: Req<'revokeForce'>): Promise<Res<'revokeForce'>> {
    return this.leases.revokeForce(req);
  }

  @Handles(leaseContracts.tidy)
  tidy(): Res<'tidy'> {
    return this.leases.tidy();
  }

  @Handles(leaseContracts.count)
  count(@Payload() req: Req<'count'>): Promise<Res<'count'>> {
    return this.leases.count(req);
  }

  @Handles(leaseContracts.list)
  list(@Payload() req: Req<'list'>): Promise<Res<'list'>> {
    return this.leases.list(req);
  }

  /** A disabled mount: its leases are revoked by the lease manager (every replica queues; idempotent). */
  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() event: z.output<typeof mountDisabled.payload>): Promise<void> {
    await this.leases.revokeForMount(event.uuid);
  }
}
