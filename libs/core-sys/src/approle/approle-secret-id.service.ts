import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  approleContracts,
  DomainError,
  invalidRequest,
  notFound,
  permissionDenied,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { isConflict, retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import { TIDY_STARTED } from '../tokens/token-admin.service';
import { TokenService } from '../tokens/token.service';
import { authMountPath, cidrAllows, loginDisplayName, loginPolicies } from '../userpass/userpass.decider';
import { ApproleSalt } from './approle-salt';
import {
  decideSecretIdSettings,
  normalizeRoleName,
  roleRefusal,
  secretIdRefusal,
  secretIdView,
  type RoleState,
} from './approle.decider';
import { ApproleSecretIdEventLog } from './approle.projection';
import { ApproleRepository } from './approle.repository';
import { SECRET_ID_ACCESSOR_UNIQUE, SECRET_ID_PKEY } from './approle.table';

type Req<K extends keyof typeof approleContracts> = RequestOf<(typeof approleContracts)[K]>;
type Res<K extends keyof typeof approleContracts> = ResponseOf<(typeof approleContracts)[K]>;
/** Secret ids destroyed per pass of a tidy (passes repeat until one finds fewer). */
const TIDY_BATCH = 100;

type MountRef = Pick<Req<'secretIdList'>, 'mount'>;

const alreadyRegistered = (): DomainError => invalidRequest('SecretID is already registered');
const badCredentials = (): DomainError => invalidRequest('invalid role or secret ID');
const noSuchRole = (name: string): DomainError =>
  invalidRequest(`role ${JSON.stringify(name)} does not exist`);
const noSuchAccessor = (accessor: string): DomainError => {
  const message = `failed to find accessor entry for secret_id_accessor: ${JSON.stringify(accessor)}`;
  return notFound({ error: message });
};
/**
 * The token store does not bind tokens to CIDRs: as userpass does, a login from outside the
 * token's bound blocks is refused.
 */
const tokenCidrRefusal = (cidrs: readonly string[], address: string): DomainError | null =>
  cidrAllows(cidrs, address) ? null : permissionDenied();
/** Consuming a use retries while other logins win the stream; each loser then sees the new count. */
const CONSUME_ATTEMPTS = 50;

/** Secret ids of AppRole roles (stored only as HMACs) and login. */
@Injectable()
export class ApproleSecretIdService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: ApproleRepository,
    private readonly log: ApproleSecretIdEventLog,
    private readonly salt: ApproleSalt,
    private readonly tokens: TokenService,
    private readonly identity: IdentityService,
  ) {}

  generate(req: Req<'secretIdCreate'>): Promise<Res<'secretIdCreate'>> {
    return this.register(req, randomUUID());
  }

  custom(req: Req<'customSecretId'>): Promise<Res<'customSecretId'>> {
    const secretId = req.body.secret_id ?? '';
    if (secretId === '') throw invalidRequest('missing secret_id');
    return this.register(req, secretId);
  }

  async list(req: MountRef & Pick<Req<'secretIdList'>, 'params'>): Promise<Res<'secretIdList'>> {
    const role = await this.role(req.mount.uuid, req.params.role_name);
    const keys = (await this.repo.secretIdsOfRole(req.mount.uuid, role.roleName)).map((s) => s.accessor);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  /** Unknown secret ids answer no data (204), as Vault. */
  async lookup(req: Req<'secretIdLookup'>): Promise<Res<'secretIdLookup'>> {
    const found = await this.bySecretId(req.mount.uuid, req.params.role_name, req.body.secret_id);
    return { data: found ? secretIdView(found.state) : null };
  }

  async destroy(req: Req<'secretIdDestroy'>): Promise<Res<'secretIdDestroy'>> {
    const mountUuid = req.mount.uuid;
    const found = await this.bySecretId(mountUuid, req.params.role_name, req.body.secret_id);
    if (found) await this.destroyHmac(mountUuid, found.state.hmac);
    return {};
  }

  async accessorLookup(req: Req<'accessorLookup'>): Promise<Res<'accessorLookup'>> {
    const found = await this.byAccessor(req.mount.uuid, req.params.role_name, req.body.secret_id_accessor);
    return { data: secretIdView(found.state) };
  }

  async accessorDestroy(req: Req<'accessorDestroy'>): Promise<Res<'accessorDestroy'>> {
    const found = await this.byAccessor(req.mount.uuid, req.params.role_name, req.body.secret_id_accessor);
    await this.destroyHmac(req.mount.uuid, found.state.hmac);
    return {};
  }

  /**
   * Login: role_id (and secret_id when the role binds one) → a token with the role's settings,
   * tied to the identity entity of the alias (mount accessor, role id). A limited secret id's use
   * is spent by an append at the version read: of concurrent logins, exactly as many succeed as
   * uses were left. Every check runs before the use is spent, so a refused login changes nothing.
   */
  async login(req: Req<'login'>, caller: CallerContext | undefined): Promise<Res<'login'>> {
    const mountUuid = req.mount.uuid;
    const roleId = (req.body.role_id ?? '').trim();
    if (roleId === '') throw invalidRequest('missing role_id');
    const found = await this.repo.roleById(mountUuid, roleId);
    if (!found) throw badCredentials();
    const role = found.state;
    const { settings } = role;
    const policies = loginPolicies(settings);
    const address = caller?.clientAddress ?? '';
    let metadata: Record<string, string> = {};
    let boundCidrs = settings.tokenBoundCidrs;
    if (role.bindSecretId) {
      const secretId = (req.body.secret_id ?? '').trim();
      if (secretId === '') throw invalidRequest('missing secret_id');
      const hasher = await this.salt.get(mountUuid);
      const hmac = hasher.hash(role.roleName, secretId);
      const used = await this.spend(role, hmac, address, (stored) =>
        hasher.matches(role.roleName, secretId, stored),
      );
      metadata = used.metadata;
      boundCidrs = used.boundCidrs;
    } else {
      const refusal = roleRefusal(role, address) ?? tokenCidrRefusal(role.settings.tokenBoundCidrs, address);
      if (refusal) throw refusal;
    }
    const entityId = await this.identity.entityForAlias(req.mount.accessor, role.roleId);
    const mountPath = authMountPath(req.mount.path);
    const { auth, warnings } = await this.tokens.issueLoginToken({
      policies,
      meta: { ...metadata, role_name: role.roleName },
      displayName: loginDisplayName(mountPath, ''),
      path: `${mountPath}login`,
      entityId,
      numUses: settings.tokenNumUses,
      ttl: settings.tokenTtl,
      maxTtl: settings.tokenMaxTtl,
      explicitMaxTtl: settings.tokenExplicitMaxTtl,
      period: settings.tokenPeriod,
      mount: { accessor: req.mount.accessor, config: req.mount.config },
      boundCidrs,
      tokenType: settings.tokenType,
    });
    return { data: null, auth, warnings };
  }

  /** Checks a secret id and spends one of its uses (if limited); its metadata. */
  private async spend(
    role: RoleState,
    hmac: string,
    address: string,
    matches: (stored: string) => boolean,
  ): Promise<{ metadata: Record<string, string>; boundCidrs: string[] }> {
    const mountUuid = role.mountUuid;
    return retryOnConflict(
      async () => {
        const current = await this.repo.secretId(mountUuid, hmac);
        if (!current || current.state.roleName !== role.roleName || !matches(current.state.hmac)) {
          throw badCredentials();
        }
        const { tokenBoundCidrs } = current.state;
        const bound = tokenBoundCidrs.length > 0 ? tokenBoundCidrs : role.settings.tokenBoundCidrs;
        const refusal =
          secretIdRefusal(role, current.state, address, this.now()) ?? tokenCidrRefusal(bound, address);
        if (refusal) throw refusal;
        if (current.state.numUses > 0) {
          await this.log.append({ mountUuid, hmac }, current.version, [
            { type: 'ApproleSecretIdUsed', data: { usedAt: this.now() } },
          ]);
        }
        return { metadata: current.state.metadata, boundCidrs: bound };
      },
      { attempts: CONSUME_ATTEMPTS },
    );
  }

  private async register(
    req: Req<'secretIdCreate'> | Req<'customSecretId'>,
    secretId: string,
  ): Promise<Res<'secretIdCreate'>> {
    const mountUuid = req.mount.uuid;
    const role = await this.role(mountUuid, req.params.role_name);
    const settings = decideSecretIdSettings(role, req.body);
    const hasher = await this.salt.get(mountUuid);
    const hmac = hasher.hash(role.roleName, secretId);
    const accessor = randomUUID();
    const createdAt = this.now();
    // A destroyed secret id's stream lives on: a re-registration appends after its last event.
    const history = await this.log.read({ mountUuid, hmac });
    const version = history.at(-1)?.streamVersion ?? 0;
    if (await this.repo.secretId(mountUuid, hmac)) throw alreadyRegistered();
    try {
      await this.log.append({ mountUuid, hmac }, version, [
        {
          type: 'ApproleSecretIdCreated',
          data: {
            mountUuid,
            roleName: role.roleName,
            hmac,
            accessor,
            ...settings,
            createdAt,
            expiresAt: settings.ttl > 0 ? createdAt + settings.ttl * 1000 : null,
          },
        },
      ]);
    } catch (error) {
      if (isConflict(error, [SECRET_ID_PKEY, SECRET_ID_ACCESSOR_UNIQUE])) throw alreadyRegistered();
      throw error;
    }
    return {
      data: {
        secret_id: secretId,
        secret_id_accessor: accessor,
        secret_id_ttl: settings.ttl,
        secret_id_num_uses: settings.numUses,
      },
    };
  }

  private async role(mountUuid: string, rawName: string): Promise<RoleState> {
    const roleName = normalizeRoleName(rawName);
    const found = await this.repo.role(mountUuid, roleName);
    if (!found) throw noSuchRole(roleName);
    return found.state;
  }

  private async bySecretId(mountUuid: string, rawName: string, secretId: string | undefined) {
    if (!secretId) throw invalidRequest('missing secret_id');
    const role = await this.role(mountUuid, rawName);
    const hasher = await this.salt.get(mountUuid);
    const found = await this.repo.secretId(mountUuid, hasher.hash(role.roleName, secretId));
    return found && found.state.roleName === role.roleName ? found : undefined;
  }

  private async byAccessor(mountUuid: string, rawName: string, accessor: string | undefined) {
    if (!accessor) throw invalidRequest('missing secret_id_accessor');
    const role = await this.role(mountUuid, rawName);
    const found = await this.repo.secretIdByAccessor(mountUuid, accessor);
    if (!found || found.state.roleName !== role.roleName) throw noSuchAccessor(accessor);
    return found;
  }

  /**
   * tidy/secret-id: destroys now every secret id the sweeper would destroy later: those past
   * their TTL and the dangling ones (their role is gone). Vault's accessor index cannot dangle
   * here (a secret id and its accessor are one row); an orphaned secret id can. Vault answers
   * 202 with its "tidy started" warning.
   */
  async tidy(): Promise<Res<'tidySecretId'>> {
    while ((await this.destroyExpired(TIDY_BATCH)) === TIDY_BATCH);
    return { status: 202, warnings: [TIDY_STARTED] };
  }

  /** Destroys up to `limit` expired, then dangling, secret ids (Vault's tidy); answers how many. */
  async destroyExpired(limit: number): Promise<number> {
    const expired = await this.repo.expiredSecretIds(this.now(), limit);
    const dangling = expired.length < limit ? await this.repo.danglingSecretIds(limit - expired.length) : [];
    for (const { mountUuid, hmac } of [...expired, ...dangling]) await this.destroyHmac(mountUuid, hmac);
    return expired.length + dangling.length;
  }

  private async destroyHmac(mountUuid: string, hmac: string): Promise<void> {
    await retryOnConflict(async () => {
      const current = await this.repo.secretId(mountUuid, hmac);
      if (!current) return;
      await this.log.append({ mountUuid, hmac }, current.version, [
        { type: 'ApproleSecretIdDestroyed', data: { destroyedAt: this.now() } },
      ]);
    });
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
