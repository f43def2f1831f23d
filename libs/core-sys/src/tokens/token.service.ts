import { Inject, Injectable } from '@nestjs/common';
import { DomainError, invalidRequest, type AuthBlock, type ResolvedToken } from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import {
  decideUse,
  isUsable,
  isUseLimited,
  issueToken,
  type TokenSpec,
  type TokenState,
} from './token.decider';
import { MountsRepository } from '../mounts/mounts.repository';
import { isBatchToken, loginIssuesBatch, openBatchToken, sealBatchToken } from './batch-token';
import { generateAccessor, generateToken, withNamespaceSuffix, withoutNamespaceSuffix } from './token-crypto';
import { TokenNamespaces } from './token-namespace.service';
import { TokenEventLog } from './token.projection';
import { TokenRepository } from './token.repository';
import { TokenSalt } from './token-salt';
import { TokenUseQueue } from './token-use-queue';
import { mountTtls, type MountTtls } from './token-ttl';
import { authBlock, resolvedToken } from './token.view';

/**
 * Conflicts a use retries beyond the token's remaining uses. Uses of one token are in line per
 * replica (TokenUseQueue), so a use conflicts only with other replicas' writes to the token, and
 * each conflict with a use spends one of the remaining uses: with `remaining + USE_ATTEMPTS`
 * attempts, a use fails only as "used up", never as a lost race, however unfair the races are.
 */
const USE_ATTEMPTS = 25;

export const invalidToken = (): DomainError => new DomainError('invalid_token', 'permission denied');

export interface IssuedToken {
  token: string;
  state: TokenState;
  warnings: string[];
}

/** What an auth method hands over to get a login token (durations in seconds). */
export interface LoginTokenRequest {
  /** sanitised token policies (default included unless no_default_policy) */
  policies: string[];
  meta: Record<string, string>;
  displayName: string;
  /** "auth/<mount>/login/<name>" */
  path: string;
  entityId: string;
  numUses: number;
  ttl: number;
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
  mount: { accessor: string; config: { default_lease_ttl: number; max_lease_ttl: number } };
  /** the auth method's token_bound_cidrs */
  boundCidrs?: string[];
  /** the user's or role's token_type (settled against the mount's tuned token_type) */
  tokenType?: string;
}

/**
 * The token store's core: issuing tokens (root at init, children via auth/token/create, logins)
 * and resolving tokens for the gateway. Tokens are looked up by their salted hash only.
 */
@Injectable()
export class TokenService {
  private readonly uses = new TokenUseQueue();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: TokenRepository,
    private readonly log: TokenEventLog,
    private readonly salt: TokenSalt,
    private readonly identity: IdentityService,
    private readonly mounts: MountsRepository,
    private readonly namespaces: TokenNamespaces,
  ) {}

  /**
   * A root token (policy "root", never expires, orphan). Called by sys/init and dev bootstrap
   * while the barrier is unlocked; `id` sets the token itself (dev mode's root token id).
   */
  async createRootToken(opts: {
    id?: string;
    namespace?: string;
  }): Promise<{ token: string; accessor: string }> {
    const spec: TokenSpec = {
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      customId: opts.id,
      parentAccessor: null,
      policies: ['root'],
      meta: {},
      displayName: 'root',
      numUses: 0,
      renewable: false,
      ttl: 0,
      backendMaxTtl: 0,
      explicitMaxTtl: 0,
      period: 0,
      path: 'auth/token/root',
      entityId: '',
      allowNonExpiring: true,
      creatorExpires: false,
    };
    const issued = await this.issue(spec, mountTtls(), '');
    return { token: issued.token, accessor: issued.state.accessor };
  }

  /** Stores a new token for `spec`; the token itself is returned once and never stored. */
  async issue(spec: TokenSpec, mount: MountTtls, mountAccessor: string): Promise<IssuedToken> {
    const hasher = await this.salt.get();
    // Vault appends a non-root namespace's id to the token and its accessor, custom ids too.
    const suffix = await this.namespaces.suffixFor(spec.namespace);
    if (spec.batch) return this.issueBatch(spec, mount, mountAccessor, suffix);
    const token = withNamespaceSuffix(spec.customId ?? generateToken(), suffix);
    const tokenHash = hasher.hash(token);
    if (spec.customId !== undefined && (await this.repo.existsByHash(tokenHash))) throw duplicateId();
    const accessor = withNamespaceSuffix(generateAccessor(), suffix);
    const { created, warnings } = issueToken(spec, {
      nowMs: this.now(),
      mount,
      mountAccessor,
      accessor,
      tokenHash,
      tokenRef: hasher.ref(token),
    });
    try {
      const state = await this.log.append(accessor, 0, [{ type: 'TokenCreated', data: created }]);
      if (!state) throw new DomainError('internal', 'internal error');
      return { token, state, warnings };
    } catch (error) {
      // Two creates of the same custom id racing: the read model's unique hash decides.
      if (isUniqueViolation(error)) throw duplicateId();
      throw error;
    }
  }

  /**
   * A batch token: the entry sealed into the token, nothing stored. It has no accessor, so it
   * cannot be looked up by one, renewed or revoked; it dies at its expiry or with its parent.
   */
  private async issueBatch(
    spec: TokenSpec,
    mount: MountTtls,
    mountAccessor: string,
    suffix: string | undefined,
  ): Promise<IssuedToken> {
    const hasher = await this.salt.get();
    const { created, warnings } = issueToken(spec, {
      nowMs: this.now(),
      mount,
      mountAccessor,
      accessor: '',
      tokenHash: '',
      tokenRef: '',
    });
    // Vault's batch entry carries no use count, period or explicit max TTL (the TTL was already
    // computed from them), and is never renewable.
    const { accessor: _a, tokenHash: _h, tokenRef: _r, ...kept } = created;
    const entry = { ...kept, numUses: 0, period: 0, explicitMaxTtl: 0, renewable: false };
    const token = withNamespaceSuffix(sealBatchToken(this.runtime.cipher, entry), suffix);
    const state: TokenState = {
      ...entry,
      accessor: '',
      tokenHash: '',
      tokenRef: hasher.ref(token),
      exhaustedAt: null,
      lastRenewedAt: null,
    };
    return { token, state, warnings };
  }

  /**
   * The live entry of a batch token: undefined when it is malformed, expired, or its parent is
   * gone (a batch token dies with its parent, as in Vault).
   */
  async openBatch(token: string): Promise<TokenState | undefined> {
    // the suffix is outside the sealed body; the body names the namespace the token acts in
    const entry = openBatchToken(this.runtime.cipher, withoutNamespaceSuffix(token));
    if (!entry) return undefined;
    const hasher = await this.salt.get();
    const state: TokenState = {
      ...entry,
      accessor: '',
      tokenHash: '',
      tokenRef: hasher.ref(token),
      exhaustedAt: null,
      lastRenewedAt: null,
    };
    if (!isUsable(state, this.now())) return undefined;
    if (state.parentAccessor !== null) {
      const parent = await this.repo.byAccessor(state.parentAccessor);
      if (!parent || !isUsable(parent.state, this.now())) return undefined;
    }
    return state;
  }

  /** A login token of an auth method: an orphan, entity-bound, with the method's TTL settings. */
  async issueLoginToken(req: LoginTokenRequest): Promise<{ auth: AuthBlock; warnings: string[] }> {
    const mount = await this.mounts.byAccessor(req.mount.accessor);
    const batch = loginIssuesBatch(mount?.config.tokenType ?? '', req.tokenType ?? '');
    const spec: TokenSpec = {
      parentAccessor: null,
      policies: req.policies,
      meta: req.meta,
      displayName: req.displayName,
      numUses: req.numUses,
      renewable: true,
      ttl: req.ttl,
      backendMaxTtl: req.maxTtl,
      explicitMaxTtl: req.explicitMaxTtl,
      period: req.period,
      path: req.path,
      entityId: req.entityId,
      allowNonExpiring: false,
      creatorExpires: false,
      ...(req.boundCidrs !== undefined ? { boundCidrs: req.boundCidrs } : {}),
      ...(batch ? { batch: true } : {}),
      // a login token belongs to the namespace of its auth method
      ...(mount?.namespace ? { namespace: mount.namespace } : {}),
    };
    const issued = await this.issue(spec, mountTtls(req.mount.config), req.mount.accessor);
    const identity = await this.identityPolicies(issued.state);
    return {
      auth: authBlock(issued.state, issued.token, identity.policies, issued.state.creationTtl),
      warnings: issued.warnings,
    };
  }

  /**
   * The gateway's token check. Unknown, expired, used-up tokens and tokens of a disabled entity
   * fail with invalid_token. Each call is one use of a use-limited token (counted atomically in
   * the token's stream), so those come back uncacheable.
   */
  async resolve(token: string): Promise<ResolvedToken> {
    if (isBatchToken(token)) return this.resolveBatch(token);
    const found = (await this.salt.find(token, (hash) => this.repo.byHash(hash)))?.found;
    if (!found || !isUsable(found.state, this.now())) throw invalidToken();
    // A wrapping token is good for the sys/wrapping routes only, which never resolve it here.
    if (isWrappingToken(found.state)) throw invalidToken();
    const identity = await this.identityPolicies(found.state);
    const state = isUseLimited(found.state) ? await this.use(found.state) : found.state;
    return resolvedToken(state, identity);
  }

  /**
   * A batch token resolves from itself. One with a parent is not cacheable: the gateway drops
   * cached tokens by accessor, and the parent's revocation must end it at once.
   */
  private async resolveBatch(token: string): Promise<ResolvedToken> {
    const state = await this.openBatch(token);
    if (!state) throw invalidToken();
    const identity = await this.identityPolicies(state);
    return { ...resolvedToken(state, identity), cacheable: state.parentAccessor === null };
  }

  /**
   * A single-use response-wrapping token (policy response-wrapping, no parent, no entity) living
   * for `ttl` seconds; its creation path is the wrapped request's path.
   */
  async issueWrappingToken(ttl: number, path: string): Promise<IssuedToken> {
    const spec: TokenSpec = {
      parentAccessor: null,
      policies: [RESPONSE_WRAPPING_POLICY],
      meta: {},
      displayName: '',
      numUses: 1,
      renewable: false,
      ttl,
      backendMaxTtl: 0,
      explicitMaxTtl: ttl,
      period: 0,
      path,
      entityId: '',
      allowNonExpiring: false,
      creatorExpires: false,
    };
    return this.issue(spec, mountTtls(), '');
  }

  /** The live wrapping token `token` names, or undefined (unknown, expired, revoked, ordinary). */
  async findWrappingToken(token: string): Promise<TokenState | undefined> {
    if (this.runtime.cipher.sealed) throw new DomainError('sealed', 'Vault is sealed');
    const found = (await this.salt.find(token, (hash) => this.repo.byHash(hash)))?.found;
    if (!found || !isUsable(found.state, this.now()) || !isWrappingToken(found.state)) return undefined;
    return found.state;
  }

  /** The same view of a token by accessor, without counting a use. */
  async resolveAccessor(accessor: string): Promise<ResolvedToken> {
    if (this.runtime.cipher.sealed) throw new DomainError('sealed', 'Vault is sealed');
    const found = await this.repo.byAccessor(accessor);
    if (!found || !isUsable(found.state, this.now())) throw invalidToken();
    return resolvedToken(found.state, await this.identityPolicies(found.state));
  }

  /** Which of these token refs belong to tokens that still exist. */
  async alive(tokenRefs: readonly string[]): Promise<string[]> {
    return this.repo.existingRefs(tokenRefs);
  }

  /**
   * Policies from the token's entity. A disabled entity makes its tokens unusable (not revoked);
   * a deleted entity simply contributes nothing, as in Vault.
   */
  async identityPolicies(
    state: TokenState,
  ): Promise<{ policies: string[]; externalPolicies?: Record<string, string[]> }> {
    if (state.entityId === '') return { policies: [] };
    const standing = await this.identity.standing(state.entityId, state.namespace ?? '');
    if (!standing) return { policies: [] };
    if (standing.disabled) throw invalidToken();
    return standing;
  }

  /**
   * One use of a use-limited token, in line behind the other uses of the same token on this
   * replica, deciding on the row as it is now (the caller's read may be stale by then).
   */
  private use(found: TokenState): Promise<TokenState> {
    const { accessor } = found;
    return this.uses.run(accessor, () =>
      retryOnConflict(
        async () => {
          const current = await this.repo.byAccessor(accessor);
          const nowMs = this.now();
          if (!current || !isUsable(current.state, nowMs)) throw invalidToken();
          const used = decideUse(current.state, nowMs);
          if (!used) return current.state;
          const after = await this.log.append(accessor, current.version, [{ type: 'TokenUsed', data: used }]);
          if (!after) throw invalidToken();
          return after;
        },
        { attempts: found.numUses + USE_ATTEMPTS },
      ),
    );
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}

/** The one policy of every response-wrapping token. */
export const RESPONSE_WRAPPING_POLICY = 'response-wrapping';

function isWrappingToken(state: TokenState): boolean {
  return state.policies.length === 1 && state.policies[0] === RESPONSE_WRAPPING_POLICY;
}

const duplicateId = (): DomainError => invalidRequest('cannot create a token with a duplicate ID');

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
