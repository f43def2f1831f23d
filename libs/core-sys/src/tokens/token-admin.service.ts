import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidation,
  invalidRequest,
  notFound,
  tokenContracts,
  type CallerContext,
  type MountInfo,
  type RequestOf,
  type ResponseOf,
  type TokenCreateBody,
  type TokenLookupData,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import { MountsService } from '../mounts/mounts.service';
import { PolicyService } from '../policies/policy.service';
import {
  createParamsOf,
  decideChildSpec,
  decideRenew,
  isUsable,
  type TokenSpec,
  type TokenState,
} from './token.decider';
import { isBatchToken } from './batch-token';
import { tokenFromHeaders } from './token-crypto';
import { TokenEventLog } from './token.projection';
import { TokenRepository } from './token.repository';
import { TokenRevocationService } from './token-revocation.service';
import { TokenSalt } from './token-salt';
import { TokenNamespaces } from './token-namespace.service';
import { TokenService } from './token.service';
import { TokenSweeper } from './token-sweeper';
import { TokenRoleRepository } from '../token-roles/token-role.repository';
import type { VersionedToken } from './token.table';
import { mountTtls, type MountTtls } from './token-ttl';
import { authBlock, lookupData } from './token.view';

type Req<K extends keyof typeof tokenContracts> = RequestOf<(typeof tokenContracts)[K]>;
type Res<K extends keyof typeof tokenContracts> = ResponseOf<(typeof tokenContracts)[K]>;
/** The routes of one family answer the same shape: typed with the first of each. */
type LookupResponse = Res<'lookup'>;
type RenewResponse = Res<'renew'>;
type NoDataResponse = Res<'revoke'>;
/** create and create-orphan: the body, and the token store mount the new token belongs to. */
type CreateRequest = {
  body: TokenCreateBody;
  path: string;
  mount: Pick<MountInfo, 'accessor' | 'config'> & { namespace?: string };
};
/** The self routes read only the forwarded token headers of the request. */
type HeadersOnly = { headers: Record<string, string> };

// Vault pairs "bad token" with ErrPermissionDenied: 403 with the message (clients: Forbidden).
const badToken = (): DomainError => new DomainError('forbidden', 'bad token');
const missingToken = (): DomainError => invalidRequest('missing token ID');
const missingAccessor = (): DomainError => invalidRequest('missing accessor');
const invalidAccessor = (): DomainError => invalidRequest('invalid accessor');
const noParent = (): DomainError => invalidRequest('parent token lookup failed: no parent found');
const batchNoRenew = (): DomainError => invalidRequest('batch tokens cannot be renewed');
const batchNoRevoke = (): DomainError => invalidRequest('batch tokens cannot be revoked');
/** A token belongs to the namespace (of a token store) or one of its children. */
const inNamespace = (state: Pick<TokenState, 'namespace'>, namespace: string | undefined): boolean =>
  (state.namespace ?? '').startsWith(namespace ?? '');

/** An authenticated caller without an accessor holds a batch token. */
const isBatchCaller = (caller: CallerContext): boolean => !caller.accessor && !!caller.tokenRef;

/** Sweeps one tidy runs at most (each revokes up to a batch per category). */
const TIDY_PASSES = 100;
export const TIDY_STARTED =
  "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.";

/**
 * The auth/token/* routes. The caller is known by the context's accessor; the raw token reaches
 * this service only in the body (lookup/renew/revoke of a given token) or in the forwarded
 * headers of the self routes that echo it back (lookup-self id, renew-self client_token).
 * Parameter-dependent sudo (no_parent, period, id, policies outside the caller's) is granted to
 * root callers: the caller context carries the root flag, not per-path sudo.
 */
@Injectable()
export class TokenAdminService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly tokens: TokenService,
    private readonly revocation: TokenRevocationService,
    private readonly repo: TokenRepository,
    private readonly log: TokenEventLog,
    private readonly salt: TokenSalt,
    private readonly identity: IdentityService,
    @Inject(PolicyService) private readonly policies: Pick<PolicyService, 'existing'>,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'authMountByAccessor'>,
    private readonly sweeper: TokenSweeper,
    @Inject(TokenRoleRepository) private readonly roles: Pick<TokenRoleRepository, 'find'>,
    private readonly namespaces: TokenNamespaces,
  ) {}

  async create(req: CreateRequest, caller: CallerContext, orphanRoute: boolean): Promise<Res<'create'>> {
    const params = createParamsOf(req.body);
    const parent = await this.parentToken(caller);
    const spec = decideChildSpec({
      parent: parent.state,
      sudo: caller.root || caller.sudo,
      orphanRoute,
      params,
      path: `auth/token/${req.path}`,
    });
    return this.issueChild(spec, req.mount, []);
  }

  /** The calling token, which is the parent of the token it creates. */
  async parentToken(caller: CallerContext): Promise<VersionedToken> {
    if (isBatchCaller(caller)) throw invalidRequest('batch tokens cannot create more tokens');
    const parent = await this.callerToken(caller);
    if (!parent) throw noParent();
    return parent;
  }

  /** Issues a token created through the token store and answers Vault's auth block. */
  async issueChild(
    spec: TokenSpec,
    mount: CreateRequest['mount'],
    warnings: readonly string[],
  ): Promise<Res<'create'>> {
    // a token belongs to the namespace of the token store that created it
    const namespace = spec.namespace ?? mount.namespace;
    const scoped = namespace ? { ...spec, namespace } : spec;
    const issued = await this.tokens.issue(scoped, mountTtls(mount.config), mount.accessor);
    const identityPolicies = await this.displayedIdentityPolicies(issued.state);
    return {
      data: null,
      auth: authBlock(issued.state, issued.token, identityPolicies, issued.state.creationTtl),
      warnings: [...warnings, ...issued.warnings, ...(await this.policyWarnings(issued.state.policies))],
    };
  }

  /**
   * auth/token/tidy: revokes now what the sweeper would revoke later (expired and used-up tokens,
   * tokens whose parent is gone, with their children), so no dangling accessor or parent link
   * remains. Vault answers 202 with a warning.
   */
  async tidy(): Promise<Res<'tidy'>> {
    let pass = 0;
    while (pass < TIDY_PASSES && (await this.sweeper.sweep()) > 0) pass++;
    return { status: 202, warnings: [TIDY_STARTED] };
  }

  async lookup(req: Req<'lookup'>, caller: CallerContext): Promise<LookupResponse> {
    const token = req.body.token;
    // Vault looks up the calling token when none is given.
    if (!token) return this.lookupSelf(req, caller);
    const found = await this.byToken(token, { namespace: req.mount.namespace });
    if (!found) throw badToken();
    return { data: await this.lookupView(found, token) };
  }

  async lookupSelf(req: HeadersOnly, caller: CallerContext): Promise<LookupResponse> {
    if (isBatchCaller(caller)) {
      // A batch token has no accessor: it is looked up from itself (the forwarded header).
      const raw = tokenFromHeaders(req.headers) ?? '';
      const found = isBatchToken(raw) ? await this.byToken(raw) : undefined;
      if (!found) throw badToken();
      return { data: await this.lookupView(found, raw) };
    }
    const found = await this.callerToken(caller);
    if (!found) throw badToken();
    return { data: await this.lookupView(found, await this.echoedToken(req, found)) };
  }

  async lookupAccessor(req: Req<'lookupAccessor'>): Promise<LookupResponse> {
    const found = await this.byAccessorField(req.body.accessor, { namespace: req.mount.namespace });
    return { data: await this.lookupView(found, '') };
  }

  async renew(req: Req<'renew'>): Promise<RenewResponse> {
    const token = req.body.token;
    if (!token) throw missingToken();
    if (isBatchToken(token)) throw batchNoRenew();
    const found = await this.byToken(token, { namespace: req.mount.namespace });
    if (!found) throw invalidRequest('token not found');
    return this.renewToken(found, req.body.increment ?? 0, token);
  }

  async renewSelf(req: Req<'renewSelf'>, caller: CallerContext): Promise<RenewResponse> {
    if (isBatchCaller(caller)) throw batchNoRenew();
    const found = await this.callerToken(caller);
    if (!found) throw invalidRequest('token not found');
    return this.renewToken(found, req.body.increment ?? 0, await this.echoedToken(req, found));
  }

  async renewAccessor(req: Req<'renewAccessor'>): Promise<RenewResponse> {
    const found = await this.byAccessorField(req.body.accessor, { namespace: req.mount.namespace });
    return this.renewToken(found, req.body.increment ?? 0, '');
  }

  async revoke(req: Req<'revoke'>): Promise<NoDataResponse> {
    const token = req.body.token;
    if (!token) throw missingToken();
    if (isBatchToken(token)) throw batchNoRevoke();
    const found = await this.byToken(token, { includeUnusable: true, namespace: req.mount.namespace });
    if (found) await this.revocation.revokeTree(found.state.accessor, 'revoked');
    return {};
  }

  async revokeSelf(caller: CallerContext): Promise<NoDataResponse> {
    if (isBatchCaller(caller)) throw batchNoRevoke();
    if (caller.accessor) await this.revocation.revokeTree(caller.accessor, 'revoked');
    return {};
  }

  async revokeAccessor(req: Req<'revokeAccessor'>): Promise<NoDataResponse> {
    const found = await this.byAccessorField(req.body.accessor, {
      includeUnusable: true,
      namespace: req.mount.namespace,
    });
    await this.revocation.revokeTree(found.state.accessor, 'revoked');
    return {};
  }

  /** revoke-orphan: the route needs sudo, the gateway checks it. */
  async revokeOrphan(req: Req<'revokeOrphan'>): Promise<NoDataResponse> {
    const token = req.body.token;
    if (!token) throw missingToken();
    if (isBatchToken(token)) throw batchNoRevoke();
    const found = await this.byToken(token, { includeUnusable: true, namespace: req.mount.namespace });
    if (!found) throw invalidRequest('token to revoke not found');
    await this.revocation.revokeOrphan(found.state.accessor);
    return {};
  }

  async listAccessors(namespace = ''): Promise<Res<'listAccessors'>> {
    const keys = await this.repo.allAccessors(namespace);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  private async renewToken(
    found: VersionedToken,
    increment: number,
    clientToken: string,
  ): Promise<RenewResponse> {
    let attempt: VersionedToken | undefined = found;
    const { state, ttl, warnings } = await retryOnConflict(async () => {
      const current = attempt ?? (await this.repo.byAccessor(found.state.accessor));
      attempt = undefined;
      if (!current || !isUsable(current.state, this.now())) throw invalidRequest('token not found');
      const mount = await this.mountTtlsOf(current.state.mountAccessor);
      const decision = decideRenew(await this.withRoleCaps(current.state), increment, this.now(), mount);
      const after = await this.log.append(current.state.accessor, current.version, [
        { type: 'TokenRenewed', data: decision.renewed },
      ]);
      if (!after) throw invalidRequest('token not found');
      return { state: after, ttl: decision.renewed.ttl, warnings: decision.warnings };
    });
    // Cached resolutions carry the old expiry.
    await this.runtime.transport.publish(invalidation, { kind: 'token', keys: [state.accessor] });
    await this.runtime.transport.flush();
    const identityPolicies = await this.displayedIdentityPolicies(state);
    return { data: null, auth: authBlock(state, clientToken, identityPolicies, ttl), warnings };
  }

  /**
   * Vault's token store renews a role's token with the role's current token_period and
   * token_explicit_max_ttl (authRenew re-reads the role), not those captured at creation.
   */
  private async withRoleCaps(state: TokenState): Promise<TokenState> {
    if (state.role === undefined || state.role === '') return state;
    const role = await this.roles.find(state.role);
    if (!role)
      throw invalidRequest(
        `original token role ${JSON.stringify(state.role)} could not be found, not renewing`,
      );
    return { ...state, period: role.state.tokenPeriod, explicitMaxTtl: role.state.tokenExplicitMaxTtl };
  }

  /** Entity policies in the token's namespace as displayed (even for a disabled entity). */
  private async displayedIdentityPolicies(state: TokenState): Promise<string[]> {
    if (state.entityId === '') return [];
    return (await this.identity.standing(state.entityId, state.namespace ?? ''))?.policies ?? [];
  }

  /** Entity policies as displayed (lookups show them even for a disabled entity). */
  private async lookupView(found: VersionedToken, id: string): Promise<TokenLookupData> {
    const { entityId, namespace } = found.state;
    const standing = entityId === '' ? null : await this.identity.standing(entityId, namespace ?? '');
    // Vault keys external_namespace_policies by namespace id
    const external: Record<string, string[]> = {};
    for (const [path, names] of Object.entries(standing?.externalPolicies ?? {}))
      external[(await this.namespaces.idOfPath(path)) ?? path] = names;
    return lookupData(found.state, id, standing?.policies ?? [], this.now(), external);
  }

  /**
   * The caller's own token. Unlike other lookups it may be used up: the request that spent its
   * last use is this one.
   */
  private async callerToken(caller: CallerContext): Promise<VersionedToken | undefined> {
    if (!caller.accessor) return undefined;
    const found = await this.repo.byAccessor(caller.accessor);
    if (!found) return undefined;
    const { expiresAt } = found.state;
    return expiresAt === 0 || expiresAt > this.now() ? found : undefined;
  }

  /** The raw token from the forwarded headers, if it is the caller's (else ""). */
  private async echoedToken(req: HeadersOnly, found: VersionedToken): Promise<string> {
    const raw = tokenFromHeaders(req.headers);
    if (!raw) return '';
    // whichever salt hashed it (this cluster's, or a DR primary's), it must match this row
    const matched = await this.salt.find(raw, () => Promise.resolve(found));
    return matched ? raw : '';
  }

  /**
   * A token named by value. `namespace` is the token store's: tokens of other namespaces than it
   * and its children do not exist there.
   */
  private async byToken(
    token: string,
    opts: { includeUnusable?: boolean; namespace?: string } = {},
  ): Promise<VersionedToken | undefined> {
    // a token of another namespace than the store's (or one below) is refused by its suffix
    if (!(await this.namespaces.admits(token, opts.namespace))) return undefined;
    if (isBatchToken(token)) {
      const state = await this.tokens.openBatch(token);
      return state && inNamespace(state, opts.namespace) ? { state, version: 0 } : undefined;
    }
    const found = (await this.salt.find(token, (hash) => this.repo.byHash(hash)))?.found;
    if (!found) return undefined;
    if (!opts.includeUnusable && !isUsable(found.state, this.now())) return undefined;
    if (!inNamespace(found.state, opts.namespace)) return undefined;
    return found;
  }

  private async byAccessorField(
    accessor: string | undefined,
    opts: { includeUnusable?: boolean; namespace?: string } = {},
  ): Promise<VersionedToken> {
    if (!accessor) throw missingAccessor();
    if (!(await this.namespaces.admits(accessor, opts.namespace))) throw invalidAccessor();
    const found = await this.repo.byAccessor(accessor);
    if (!found || (!opts.includeUnusable && !isUsable(found.state, this.now()))) throw invalidAccessor();
    if (!inNamespace(found.state, opts.namespace)) throw invalidAccessor();
    return found;
  }

  private async policyWarnings(policies: readonly string[]): Promise<string[]> {
    const names = policies.filter((p) => p !== 'root');
    if (names.length === 0) return [];
    const existing = new Set(await this.policies.existing(names));
    return names.filter((p) => !existing.has(p)).map((p) => `Policy ${JSON.stringify(p)} does not exist`);
  }

  private async mountTtlsOf(mountAccessor: string): Promise<MountTtls> {
    if (mountAccessor === '') return mountTtls();
    const mount = await this.mounts.authMountByAccessor(mountAccessor);
    return mountTtls(mount?.config);
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
