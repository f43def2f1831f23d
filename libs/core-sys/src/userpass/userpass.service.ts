import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  notFound,
  userpassContracts,
  type CallerContext,
  type ResponseOf,
  type RequestOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import { TokenService } from '../tokens/token.service';
import {
  applyTokenFields,
  authMountPath,
  cidrAllows,
  DEFAULT_TOKEN_SETTINGS,
  loginDisplayName,
  loginPolicies,
  normalizeUsername,
  userView,
} from './userpass.decider';
import { UserpassEventLog } from './userpass.projection';
import { burnPasswordCheck, hashPassword, verifyPassword } from './userpass-password';
import { UserpassRepository } from './userpass.repository';

type Req<K extends keyof typeof userpassContracts> = RequestOf<(typeof userpassContracts)[K]>;
type Res<K extends keyof typeof userpassContracts> = ResponseOf<(typeof userpassContracts)[K]>;
/** What identifies a user: its mount and the username of the route. */
type UserRef = Pick<Req<'userRead'>, 'mount' | 'params'>;

const badCredentials = (): DomainError => invalidRequest('invalid username or password');
const missingPassword = (): DomainError => invalidRequest('missing password');
const noSuchUser = (): DomainError => invalidRequest('username does not exist');

/** The userpass auth method: users of a mount (by mount uuid) and login. */
@Injectable()
export class UserpassService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: UserpassRepository,
    private readonly log: UserpassEventLog,
    private readonly tokens: TokenService,
    private readonly identity: IdentityService,
  ) {}

  async exists(req: Pick<Req<'userExists'>, 'mount' | 'params'>): Promise<{ exists: boolean }> {
    const found = await this.repo.find(req.mount.uuid, normalizeUsername(req.params['username'] ?? ''));
    return { exists: found !== undefined };
  }

  /** Create (password required) or update (only the given fields change). 204. */
  async write(req: Req<'userWrite'>): Promise<Res<'userWrite'>> {
    const mountUuid = req.mount.uuid;
    const username = normalizeUsername(req.params.username);
    const { password } = req.body;
    if (password === '') throw missingPassword();
    // Hash once, outside the retry loop: scrypt is deliberately slow.
    const passwordHash = password !== undefined ? await hashPassword(password) : undefined;
    await retryOnConflict(async () => {
      const current = await this.repo.find(mountUuid, username);
      if (!current && passwordHash === undefined) throw missingPassword();
      const settings = applyTokenFields(current?.state.settings ?? DEFAULT_TOKEN_SETTINGS, req.body);
      const version = current?.version ?? (await this.log.version({ mountUuid, username }));
      await this.log.append({ mountUuid, username }, version, [
        {
          type: 'UserpassUserWritten',
          data: {
            mountUuid,
            username,
            passwordHash: passwordHash ?? current?.state.passwordHash ?? '',
            settings,
            writtenAt: this.now(),
          },
        },
      ]);
    });
    return {};
  }

  async read(req: UserRef): Promise<Res<'userRead'>> {
    const found = await this.repo.find(req.mount.uuid, normalizeUsername(req.params.username));
    if (!found) throw notFound();
    return { data: userView(found.state.settings) };
  }

  async delete(req: UserRef): Promise<Res<'userDelete'>> {
    const mountUuid = req.mount.uuid;
    const username = normalizeUsername(req.params.username);
    await retryOnConflict(async () => {
      const current = await this.repo.find(mountUuid, username);
      if (!current) return;
      await this.log.append({ mountUuid, username }, current.version, [
        { type: 'UserpassUserDeleted', data: { deletedAt: this.now() } },
      ]);
    });
    return {};
  }

  async list(req: Pick<Req<'userList'>, 'mount'>): Promise<Res<'userList'>> {
    const keys = await this.repo.usernames(req.mount.uuid);
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async setPassword(req: Req<'userPassword'>): Promise<Res<'userPassword'>> {
    const mountUuid = req.mount.uuid;
    const username = normalizeUsername(req.params.username);
    const { password } = req.body;
    if (!(await this.repo.find(mountUuid, username))) throw noSuchUser();
    if (!password) throw missingPassword();
    const passwordHash = await hashPassword(password);
    await retryOnConflict(async () => {
      const current = await this.repo.find(mountUuid, username);
      if (!current) throw noSuchUser();
      await this.log.append({ mountUuid, username }, current.version, [
        { type: 'UserpassPasswordSet', data: { passwordHash, setAt: this.now() } },
      ]);
    });
    return {};
  }

  async setPolicies(req: Req<'userPolicies'>): Promise<Res<'userPolicies'>> {
    const mountUuid = req.mount.uuid;
    const username = normalizeUsername(req.params.username);
    const given = req.body.token_policies ?? req.body.policies ?? [];
    const tokenPolicies = given.filter((p) => p !== '');
    await retryOnConflict(async () => {
      const current = await this.repo.find(mountUuid, username);
      if (!current) throw noSuchUser();
      await this.log.append({ mountUuid, username }, current.version, [
        { type: 'UserpassPoliciesSet', data: { tokenPolicies, setAt: this.now() } },
      ]);
    });
    return {};
  }

  /** Deletes every user of a mount (the auth method was disabled); idempotent across replicas. */
  async purgeMount(mountUuid: string): Promise<number> {
    let count = 0;
    for (const username of await this.repo.usernames(mountUuid)) {
      await retryOnConflict(async () => {
        const current = await this.repo.find(mountUuid, username);
        if (!current) return;
        await this.log.append({ mountUuid, username }, current.version, [
          { type: 'UserpassUserDeleted', data: { deletedAt: this.now() } },
        ]);
        count += 1;
      });
    }
    return count;
  }

  /**
   * Login: a token with the user's settings, tied to the identity entity of the alias
   * (mount accessor, username), created on first login. Unknown users and wrong passwords get
   * the same answer after the same work.
   */
  async login(req: Req<'login'>, caller: CallerContext | undefined): Promise<Res<'login'>> {
    const username = normalizeUsername(req.params.username);
    const { password } = req.body;
    if (!password) throw missingPassword();
    const found = await this.repo.find(req.mount.uuid, username);
    const ok = found
      ? await verifyPassword(password, found.state.passwordHash)
      : await burnPasswordCheck(password);
    if (!found || !ok) throw badCredentials();

    const { settings } = found.state;
    if (!cidrAllows(settings.tokenBoundCidrs, caller?.clientAddress ?? '')) {
      throw new DomainError('permission_denied', 'permission denied');
    }
    const policies = loginPolicies(settings);
    const entityId = await this.identity.entityForAlias(req.mount.accessor, username);
    const mountPath = authMountPath(req.mount.path);
    const { auth, warnings } = await this.tokens.issueLoginToken({
      policies,
      meta: { username },
      displayName: loginDisplayName(mountPath, username),
      path: `${mountPath}login/${username}`,
      entityId,
      numUses: settings.tokenNumUses,
      ttl: settings.tokenTtl,
      maxTtl: settings.tokenMaxTtl,
      explicitMaxTtl: settings.tokenExplicitMaxTtl,
      period: settings.tokenPeriod,
      mount: { accessor: req.mount.accessor, config: req.mount.config },
      boundCidrs: settings.tokenBoundCidrs,
      tokenType: settings.tokenType,
    });
    return { data: null, auth, warnings };
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}
