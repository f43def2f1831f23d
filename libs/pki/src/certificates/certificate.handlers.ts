import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineLeaseContracts,
  invalidRequest,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { Caller, Handles } from '@coffer/transport';
import type { z } from 'zod';
import { IssueService } from './issue.service';
import { RevocationService } from './revocation.service';

type Req<K extends keyof typeof pki> = RequestOf<(typeof pki)[K]>;
type Res<K extends keyof typeof pki> = Promise<ResponseOf<(typeof pki)[K]>>;

const leases = engineLeaseContracts('pki');
type LeaseCall = z.output<(typeof leases)['revoke']['request']>;

/** Issuing, signing, listing and revoking certificates, and their leases (no logic). */
@Controller()
export class CertificateHandlers {
  constructor(
    private readonly issuing: IssueService,
    private readonly revocation: RevocationService,
  ) {}

  @Handles(pki.issue)
  issue(@Payload() req: Req<'issue'>, @Caller() caller: CallerContext): Res<'issue'> {
    return this.issuing.issue(req, caller);
  }

  @Handles(pki.sign)
  sign(@Payload() req: Req<'sign'>, @Caller() caller: CallerContext): Res<'sign'> {
    return this.issuing.sign(req, caller);
  }

  @Handles(pki.signVerbatim)
  signVerbatim(@Payload() req: Req<'signVerbatim'>, @Caller() caller: CallerContext): Res<'signVerbatim'> {
    return this.issuing.signVerbatim(req, caller);
  }

  @Handles(pki.revoke)
  revoke(@Payload() req: Req<'revoke'>): Res<'revoke'> {
    return this.revocation.revoke(req);
  }

  @Handles(pki.tidy)
  tidy(@Payload() req: Req<'tidy'>): Res<'tidy'> {
    return this.revocation.tidy(req);
  }

  @Handles(pki.certList)
  list(@Payload() req: Req<'certList'>): Res<'certList'> {
    return this.revocation.list(req);
  }

  @Handles(leases.renew)
  renew(): Promise<never> {
    return Promise.reject(invalidRequest('lease is not renewable'));
  }

  /** The lease of a generate_lease certificate or a generated root ended: it is revoked. */
  @Handles(leases.revoke)
  async leaseRevoked(@Payload() req: LeaseCall): Promise<Record<string, never>> {
    const serial = req.internal['serial_number'];
    if (typeof serial === 'string') await this.revocation.revokeForLease(req.mount.uuid, serial);
    return {};
  }
}
