import {
  coreLeaseRegister,
  DomainError,
  encodeContext,
  engineLeaseContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
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
  /** when each entry of `revoked` arrived (epoch ms), index for index */
  readonly revokedAt: number[] = [];
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
        this.revokedAt.push(Date.now());
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

/** A mount of the test engine: 1h default, 2h max. */
export const LEASE_TEST_MOUNT: MountInfo = {
  path: 'dyn/',
  uuid: 'dyn-uuid',
  accessor: 'leasetest_0001',
  type: 'leasetest',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 3600, max_lease_ttl: 7200 },
};

/** What the gateway does when the test engine answers with `secret`. */
export function registerTestLease(
  client: Transport,
  caller: CallerContext,
  path: string,
  secret: Record<string, unknown>,
  mount: MountInfo = LEASE_TEST_MOUNT,
) {
  return client.request(
    coreLeaseRegister,
    { path, mount, service: 'leasetest', secret },
    { headers: encodeContext(caller) },
  );
}
