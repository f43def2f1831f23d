import { DomainError, engineLeaseContracts } from '@coffer/contracts';
import type { Subscription, Transport } from '@coffer/transport';
import type { z } from 'zod';

type LeaseCall = z.output<ReturnType<typeof engineLeaseContracts>['revoke']['request']>;

/**
 * A lease-bearing engine for tests only (no shipped engine issues leases yet): it serves
 * `<service>.lease.renew` / `.revoke` on a transport, records every call, and fails on demand.
 */
export class LeaseTestEngine {
  readonly renewed: LeaseCall[] = [];
  readonly revoked: LeaseCall[] = [];
  /** revocations answer this error while set */
  failRevoke: string | undefined;
  /** what renew grants (seconds; 0 = the lease's own TTL) */
  renewTtl = 0;
  private readonly subs: Subscription[];

  constructor(
    transport: Transport,
    readonly service = 'leasetest',
  ) {
    const contracts = engineLeaseContracts(service);
    this.subs = [
      transport.serve(contracts.renew, service, (req) => {
        this.renewed.push(req);
        return Promise.resolve({ ttl: this.renewTtl, max_ttl: 0 });
      }),
      transport.serve(contracts.revoke, service, (req) => {
        if (this.failRevoke !== undefined) {
          return Promise.reject(new DomainError('invalid_request', this.failRevoke));
        }
        this.revoked.push(req);
        return Promise.resolve({});
      }),
    ];
  }

  revokedIds(): string[] {
    return this.revoked.map((r) => r.lease_id);
  }

  stop(): void {
    for (const s of this.subs) s.unsubscribe();
  }
}
