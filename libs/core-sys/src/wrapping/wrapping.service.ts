import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  type CallerContext,
  type ContractRequest,
  type RequestOf,
  type ResponseOf,
  type WrapInfo,
  type coreWrapResponse,
  type wrappingContracts,
} from '@coffer/contracts';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { AclService } from '../capabilities/acl.service';
import { ReplicaSealedRepository } from '../replication/replica-sealed.repository';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { TokenService } from '../tokens/token.service';
import { tokenFromHeaders } from '../tokens/token-crypto';
import { invalidWrappingToken, pendingResponse, rfc3339Nano, type PendingResponse } from './wrapping.decider';
import { isJwt, WrappingJwt } from './wrapping-jwt';
import { responseWrappedV1 } from './wrapping.events';
import { WrappingEventLog } from './wrapping.projection';

type C = typeof wrappingContracts;
type WrapRequest = ContractRequest<typeof coreWrapResponse>;

/** A route that takes the wrapping token as `token` or as the (forwarded) client token. */
interface TokenRequest {
  body: { token?: string };
  query: Record<string, string>;
  headers: Record<string, string>;
}

/**
 * Response wrapping: a response is kept in its wrapping token's stream until the one unwrap (or
 * rewrap) that wins the append at the stream's version; every loser, and every unknown, expired,
 * revoked or ordinary token, answers Vault's "wrapping token is not valid or does not exist".
 */
@Injectable()
export class WrappingService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(TokenService)
    private readonly tokens: Pick<TokenService, 'issueWrappingToken' | 'findWrappingToken' | 'resolve'>,
    @Inject(TokenRevocationService) private readonly revocation: Pick<TokenRevocationService, 'revokeTree'>,
    private readonly log: WrappingEventLog,
    @Inject(WrappingJwt) private readonly jwt: Pick<WrappingJwt, 'sign' | 'open'>,
    @Inject(AclService) private readonly acls: Pick<AclService, 'forToken'>,
    @Inject(ReplicaSealedRepository) private readonly replicated: Pick<ReplicaSealedRepository, 'find'>,
  ) {}

  /** The gateway's wrapping of any answer: a new wrapping token holding `response`. */
  async wrap(req: WrapRequest): Promise<WrapInfo> {
    const ttl = Math.floor(req.ttl);
    if (ttl < 1) throw invalidRequest('wrapping TTL must be at least one second');
    const issued = await this.tokens.issueWrappingToken(ttl, req.creationPath);
    const { accessor, createdAt, creationTtl } = issued.state;
    await this.log.append(accessor, 0, [
      {
        type: 'ResponseWrapped',
        data: {
          response: req.response,
          creationTtl,
          createdAt,
          creationPath: req.creationPath,
          ...(req.wrappedAccessor ? { wrappedAccessor: req.wrappedAccessor } : {}),
        },
      },
    ]);
    // Vault's jwt format: the same wrapping token, handed out inside an ES512 JWT.
    const token =
      req.format === 'jwt'
        ? await this.jwt.sign({
            token: issued.token,
            createdAt,
            ttl: creationTtl,
            // Vault's claim is the wrapped auth block's accessor only (not an approle secret id's)
            wrappedAccessor: authAccessorOf(req.response),
          })
        : issued.token;
    return {
      token,
      accessor,
      ttl: creationTtl,
      creation_time: rfc3339Nano(createdAt),
      creation_path: req.creationPath,
      ...(req.wrappedAccessor ? { wrapped_accessor: req.wrappedAccessor } : {}),
    };
  }

  /** sys/wrapping/wrap: the body as data, wrapped by the gateway (which needs the wrap TTL header). */
  wrapValues(req: RequestOf<C['wrap']>): ResponseOf<C['wrap']> {
    if (Object.keys(req.headers).length === 0)
      throw invalidRequest('wrapping information was nil; wrapping token not created');
    return { data: req.body };
  }

  async unwrap(req: RequestOf<C['unwrap']>): Promise<ResponseOf<C['unwrap']>> {
    const pending = await this.release(req, 'unwrapped', 'sys/wrapping/unwrap');
    return { kind: 'raw', status: 200, body: pending.wrapped.response, rewrappable: true };
  }

  async lookup(req: RequestOf<C['lookup']>): Promise<ResponseOf<C['lookup']>> {
    const { pending } = await this.pending(req);
    return {
      data: {
        creation_ttl: pending.wrapped.creationTtl,
        creation_time: rfc3339Nano(pending.wrapped.createdAt),
        creation_path: pending.wrapped.creationPath,
      },
    };
  }

  /** The same response under a new token with the same creation TTL and path; the old one is gone. */
  async rewrap(req: RequestOf<C['rewrap']>, caller: CallerContext): Promise<ResponseOf<C['rewrap']>> {
    const { wrapped } = await this.release(req, 'rewrapped', 'sys/wrapping/rewrap');
    // Vault's rewrap wraps a response without an auth block: no wrapped_accessor, plain format.
    const wrapInfo = await this.wrap({
      response: wrapped.response,
      ttl: wrapped.creationTtl,
      creationPath: wrapped.creationPath,
    });
    return {
      kind: 'raw',
      status: 200,
      body: {
        request_id: caller.requestId,
        lease_id: '',
        renewable: false,
        lease_duration: 0,
        data: null,
        wrap_info: wrapInfo,
        warnings: null,
        auth: null,
      },
    };
  }

  /** Takes the response out of its stream (exactly one caller wins), then revokes the token. */
  private async release(
    req: TokenRequest,
    reason: 'unwrapped' | 'rewrapped',
    aclPath: 'sys/wrapping/unwrap' | 'sys/wrapping/rewrap',
  ): Promise<PendingResponse> {
    // Vault validates the wrapping token (400 when invalid) before the caller's ACL (403).
    const { accessor, pending } = await this.pending(req);
    if (req.body.token) await this.assertThirdParty(req, aclPath);
    try {
      await this.log.append(accessor, pending.version, [
        { type: 'WrappedResponseReleased', data: { reason, releasedAt: this.runtime.clock().getTime() } },
      ]);
    } catch (error) {
      if (isConcurrencyError(error)) throw invalidWrappingToken();
      throw error;
    }
    await this.revocation.revokeTree(accessor, 'uses_exhausted');
    return pending;
  }

  /**
   * A third party (wrapping token as `token`) unwraps or rewraps as itself, as Vault: the route is
   * not unauthenticated there, so its own client token must be valid and its ACL must grant
   * update on the sys/wrapping path (the default policy does); 403 otherwise.
   */
  private async assertThirdParty(req: TokenRequest, aclPath: string): Promise<void> {
    const clientToken = tokenFromHeaders(req.headers);
    if (!clientToken) throw permissionDenied();
    const acl = await this.acls.forToken(await this.tokens.resolve(clientToken));
    if (!acl.allowOperation({ path: aclPath, operation: 'update', params: req.body }).allowed)
      throw permissionDenied();
  }

  private async pending(req: TokenRequest): Promise<{ accessor: string; pending: PendingResponse }> {
    let token = req.body.token || req.query['token'] || tokenFromHeaders(req.headers);
    if (!token) throw invalidWrappingToken();
    if (isJwt(token)) token = await this.jwt.open(token);
    const state = await this.tokens.findWrappingToken(token);
    if (!state) throw invalidWrappingToken();
    const own = await this.log.read(state.accessor);
    const pending = own.length > 0 ? pendingResponse(own) : await this.replicatedResponse(state.accessor);
    if (!pending) throw invalidWrappingToken();
    return { accessor: state.accessor, pending };
  }

  /**
   * A DR primary's wrapped response, kept by the replay (this cluster's own log has none of its
   * streams): its release appends at version 0 of this cluster's own stream, which from then on
   * decides (single use).
   */
  private async replicatedResponse(accessor: string): Promise<PendingResponse | undefined> {
    const kept = await this.replicated.find(this.log.log.streamOf(accessor));
    return kept === undefined
      ? undefined
      : { wrapped: responseWrappedV1.parse(JSON.parse(kept)), version: 0 };
  }
}

const permissionDenied = (): DomainError => new DomainError('permission_denied', 'permission denied');

function authAccessorOf(response: Record<string, unknown>): string {
  const auth = response['auth'];
  if (auth === null || typeof auth !== 'object') return '';
  const accessor = (auth as Record<string, unknown>)['accessor'];
  return typeof accessor === 'string' ? accessor : '';
}
