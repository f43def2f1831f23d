import { Inject, Injectable } from '@nestjs/common';
import {
  coreTokenResolve,
  encodeContext,
  invalidRequest,
  isDomainError,
  rekeyContracts,
  tokenContracts,
  type CallerContext,
  type EngineRequest,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';

const c = rekeyContracts;

/** What the attempt routes answer: generate-root's status object (raw). */
export type AttemptBody = Record<string, unknown> | null;

/**
 * The DR operation token, through generate-root's machinery in core-sys (the seal leader keeps
 * the attempt; shares are checked against this cluster's root key): the attempt routes are
 * generate-root's, and the token it produces is a root token of this cluster, which promote and
 * update-primary check and operation-token/delete revokes. It has no TTL, like Vault's.
 */
@Injectable()
export class OperationTokenService {
  constructor(@Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime) {}

  async read(req: EngineRequest): Promise<AttemptBody> {
    const res = await this.runtime.transport.request(c.generateRootStatus, { ...req, body: {} });
    return res.body ?? null;
  }

  async start(req: EngineRequest, pgpKey: string): Promise<AttemptBody> {
    const res = await this.runtime.transport.request(
      c.generateRootInit,
      { ...req, body: pgpKey === '' ? {} : { pgp_key: pgpKey } },
      { write: true },
    );
    return res.body ?? null;
  }

  async cancel(req: EngineRequest): Promise<void> {
    await this.runtime.transport.request(c.generateRootCancel, { ...req, body: {} }, { write: true });
  }

  async update(req: EngineRequest, key: string, nonce: string): Promise<AttemptBody> {
    const res = await this.runtime.transport.request(
      c.generateRootUpdate,
      { ...req, body: { key, nonce } },
      { write: true },
    );
    return res.body ?? null;
  }

  /** Promote and update-primary: the token must be a live root token of this cluster. */
  async check(token: string): Promise<void> {
    if (token === '') throw invalidRequest('missing dr_operation_token');
    try {
      const resolved = await this.runtime.transport.request(coreTokenResolve, { token });
      if (resolved.policies.includes('root')) return;
    } catch (error) {
      if (!isDomainError(error) || error.code === 'service_unavailable') throw error;
    }
    throw invalidRequest('invalid DR operation token');
  }

  /** operation-token/delete: revokes the token (it is checked first: a bad one is a 400). */
  async revoke(req: EngineRequest, token: string, caller: CallerContext): Promise<void> {
    await this.check(token);
    await this.runtime.transport.request(
      tokenContracts.revoke,
      { ...req, path: 'revoke', body: { token } },
      { headers: encodeContext(caller), write: true },
    );
  }
}
