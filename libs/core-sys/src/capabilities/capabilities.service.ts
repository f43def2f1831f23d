import { Inject, Injectable } from '@nestjs/common';
import {
  invalidRequest,
  isDomainError,
  sysContracts,
  type CallerContext,
  type SysCapabilitiesBody,
  type ResponseOf,
  type ResolvedToken,
} from '@coffer/contracts';
import type { Acl } from '@coffer/acl';
import { SealService } from '../seal/seal.service';
import { TokenService } from '../tokens/token.service';
import { AclService } from './acl.service';
import { capabilitiesByPath, capabilitiesRequest } from './capabilities.logic';

/** The three capability checks answer the same shape. */
type CapabilitiesResponse = ResponseOf<typeof sysContracts.capabilitiesSelf>;

/** sys/capabilities-self, sys/capabilities, sys/capabilities-accessor, sys/internal/ui/resultant-acl. */
@Injectable()
export class CapabilitiesService {
  constructor(
    private readonly seal: SealService,
    private readonly acls: AclService,
    @Inject(TokenService) private readonly tokens: Pick<TokenService, 'resolve' | 'resolveAccessor'>,
  ) {}

  async self(body: SysCapabilitiesBody, caller: CallerContext): Promise<CapabilitiesResponse> {
    this.seal.assertUnsealed();
    const { paths } = capabilitiesRequest(body);
    return this.#answer(paths, await this.acls.forCaller(caller));
  }

  async ofToken(body: SysCapabilitiesBody): Promise<CapabilitiesResponse> {
    this.seal.assertUnsealed();
    const { paths, token } = capabilitiesRequest(body);
    if (token === '') throw invalidRequest('no token found');
    const resolved = await this.#resolved(() => this.tokens.resolve(token), 'invalid token');
    return this.#answer(paths, await this.acls.forToken(resolved));
  }

  async ofAccessor(body: SysCapabilitiesBody): Promise<CapabilitiesResponse> {
    this.seal.assertUnsealed();
    const { paths, accessor } = capabilitiesRequest(body);
    if (accessor === '') throw invalidRequest('missing accessor');
    const resolved = await this.#resolved(() => this.tokens.resolveAccessor(accessor), 'invalid accessor');
    return this.#answer(paths, await this.acls.forToken(resolved));
  }

  async resultantAcl(caller: CallerContext): Promise<ResponseOf<typeof sysContracts.resultantAcl>> {
    this.seal.assertUnsealed();
    const acl = await this.acls.forCaller(caller);
    return { data: { ...acl.resultant() } };
  }

  #answer(paths: string[], acl: Acl): CapabilitiesResponse {
    return { kind: 'injected', data: capabilitiesByPath(paths, (p) => acl.capabilities(p)) };
  }

  /** An unknown token is the caller's mistake here (400), not an authentication failure (403). */
  async #resolved(resolve: () => Promise<ResolvedToken>, message: string): Promise<ResolvedToken> {
    try {
      return await resolve();
    } catch (error) {
      if (isDomainError(error) && error.code === 'invalid_token') throw invalidRequest(message);
      throw error;
    }
  }
}
