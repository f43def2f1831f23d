import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { coreLeasesHeld, type ContractRequest, type ContractResponse } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { LeaseRepository } from './lease.repository';

type HeldRequest = ContractRequest<typeof coreLeasesHeld>;

/**
 * Which of an engine's credentials have a lease (`core.sys.leases.held`): the engines' recovery
 * passes ask it to find credentials made outside whose lease was never registered. Irrevocable
 * leases count as held: their credential is the lease's to report, not the engine's to reap.
 */
@Controller()
export class LeasePresenceHandlers {
  constructor(private readonly repo: LeaseRepository) {}

  @Handles(coreLeasesHeld)
  async held(@Payload() req: HeldRequest): Promise<ContractResponse<typeof coreLeasesHeld>> {
    if (req.values.length === 0) return { held: [] };
    const asked = new Set(req.values);
    const held = new Set<string>();
    for (const internal of await this.repo.internalsOfMount(req.mount_uuid, req.since)) {
      const value = internal[req.field];
      if (typeof value === 'string' && asked.has(value)) held.add(value);
    }
    return { held: [...held] };
  }
}
