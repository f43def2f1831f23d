import { Inject, Injectable } from '@nestjs/common';
import { invalidRequest, notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { directory } from '@coffer/contracts/directory';
import { isConcurrencyError, retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { DIRECTORY_RUNTIME } from '../directory.di';
import { findAccount } from '../ldap/directory-accounts';
import { RecordStore, type Versioned } from '../records/record.store';
import { PasswordRotation } from '../rotation/password-rotation.service';
import { RECORDS_PK } from '../shared/directory.table';
import { directoryRoleView, roleNeedsRotation, roleTtl, usernameOf } from './role.rules';

const RETRY = { attempts: 10, uniqueConstraints: [RECORDS_PK] };
const NOT_ROTATED_ON_PRIMARY =
  "the role's password is rotated on the primary, which has not set one yet: rotate-role (forwarded to the primary) or read its creds on the primary first";

/** Roles (static accounts), their creds and rotate-role. */
@Injectable()
export class RoleService {
  constructor(
    private readonly store: RecordStore,
    private readonly rotation: PasswordRotation,
    @Inject(DIRECTORY_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async list(req: RequestOf<typeof directory.roleList>): Promise<ResponseOf<typeof directory.roleList>> {
    const keys = await this.store.names(req.mount.uuid, 'role');
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async write(req: RequestOf<typeof directory.roleWrite>): Promise<ResponseOf<typeof directory.roleWrite>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name.toLowerCase();
    const config = await this.rotation.config(mountUuid);
    const account = req.body.service_account_name;
    if (account === '') throw invalidRequest('"service_account_name" is required');
    const ttl = roleTtl(req.body.ttl, config.state.passwords);
    // the account must exist in the directory
    await this.rotation.directory(config.state, (client) =>
      findAccount(client, config.state.connection, account),
    );
    await retryOnConflict(async () => {
      const existing = await this.store.get(mountUuid, 'role', name);
      await this.store.append(mountUuid, 'role', name, existing?.version ?? 0, [
        { type: 'DirectoryRoleWritten', data: { service_account_name: account, ttl } },
      ]);
    }, RETRY);
    return {};
  }

  async read(req: RequestOf<typeof directory.roleRead>): Promise<ResponseOf<typeof directory.roleRead>> {
    const mountUuid = req.mount.uuid;
    const role = await this.store.get(mountUuid, 'role', req.params.name.toLowerCase());
    if (!role) throw notFound();
    const config = await this.rotation.config(mountUuid);
    const found = await this.rotation.directory(config.state, (client) =>
      findAccount(client, config.state.connection, role.state.service_account_name),
    );
    return { data: directoryRoleView(role.state, found.passwordLastSet) };
  }

  /** Deleting a role forgets its creds; the directory keeps the password. */
  async delete(
    req: RequestOf<typeof directory.roleDelete>,
  ): Promise<ResponseOf<typeof directory.roleDelete>> {
    const name = req.params.name.toLowerCase();
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'role', name);
      if (!existing) return;
      await this.store.append(req.mount.uuid, 'role', name, existing.version, [
        { type: 'DirectoryRecordDeleted', data: {} },
      ]);
    }, RETRY);
    return {};
  }

  /**
   * The role's passwords. Like Vault, the password is rotated first when Coffer has never set it,
   * when the directory shows a later change than Coffer's (beyond last_rotation_tolerance), or
   * when the role's ttl has passed.
   */
  async creds(req: RequestOf<typeof directory.creds>): Promise<ResponseOf<typeof directory.creds>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name.toLowerCase();
    const config = await this.rotation.config(mountUuid);
    const state = await retryOnConflict(async () => {
      const role = await this.settledRole(mountUuid, name, config);
      if (!role) return undefined;
      const found = await this.rotation.directory(config.state, (client) =>
        findAccount(client, config.state.connection, role.state.service_account_name),
      );
      const now = this.now();
      if (
        !roleNeedsRotation(
          role.state,
          found.passwordLastSet,
          now,
          config.state.passwords.last_rotation_tolerance,
        )
      )
        return role.state;
      // a performance secondary serves the primary's password: the primary rotates it
      if (!(await this.store.writableHere(mountUuid, 'role', role))) {
        if (role.state.password.current) return role.state;
        throw invalidRequest(NOT_ROTATED_ON_PRIMARY);
      }
      await this.rotateOrWait(mountUuid, role, config);
      return (await this.settledRole(mountUuid, name, config))?.state;
    }, RETRY);
    if (!state) throw notFound();
    if (!state.password.current) throw invalidRequest('the role has no password yet');
    return {
      data: {
        username: usernameOf(state.service_account_name),
        current_password: state.password.current,
        ...(state.password.last ? { last_password: state.password.last } : {}),
      },
    };
  }

  async rotateRole(
    req: RequestOf<typeof directory.rotateRole>,
  ): Promise<ResponseOf<typeof directory.rotateRole>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name.toLowerCase();
    const config = await this.rotation.config(mountUuid);
    await retryOnConflict(async () => {
      const role = await this.settledRole(mountUuid, name, config);
      if (!role) throw invalidRequest(`role ${name} does not exist`);
      await this.rotation.rotate(mountUuid, 'role', role, config, role.state.service_account_name);
    }, RETRY);
    return {};
  }

  /** The rotation sweep: rotates `name` if it is (still) due. */
  async rotateIfDue(mountUuid: string, name: string): Promise<void> {
    const config = await this.store.get(mountUuid, 'config', 'config');
    if (!config) return;
    const role = await this.settledRole(mountUuid, name, config);
    if (!role?.state.password.last_rotation) return;
    if (!roleNeedsRotation(role.state, null, this.now(), config.state.passwords.last_rotation_tolerance))
      return;
    await this.rotateOrWait(mountUuid, role, config);
  }

  private settledRole(mountUuid: string, name: string, config: Versioned<'config'>) {
    return this.rotation.settled(mountUuid, 'role', name, config, (r) => r.state.service_account_name);
  }

  /** Rotates; when another replica rotates at the same time, its rotation is the one. */
  private async rotateOrWait(mountUuid: string, role: Versioned<'role'>, config: Versioned<'config'>) {
    try {
      await this.rotation.rotate(mountUuid, 'role', role, config, role.state.service_account_name);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
    }
  }

  private now(): Date {
    return this.runtime.clock();
  }
}
