import { Inject, Injectable } from '@nestjs/common';
import { corePasswordGenerate, invalidRequest } from '@coffer/contracts';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { DIRECTORY_RUNTIME } from '../directory.di';
import { findAccount, findBindEntry, setPassword } from '../ldap/directory-accounts';
import { bindIdentity, DirectoryError, withDirectory, type BindIdentity } from '../ldap/ldap-connection';
import { generatePassword } from '../passwords/password-generator';
import type { RecordKind } from '../records/record.events';
import { passwordOf, type ConfigState } from '../records/record.state';
import { RecordStore, type Versioned } from '../records/record.store';

type PasswordKind = Exclude<RecordKind, 'set'>;
const POLL_MS = 100;

/**
 * Every password change in the directory, for the bind account (config), roles and library
 * accounts, goes through here. It is write-ahead: `PasswordRotationIntended` with the new password
 * is appended at the version read (a concurrent rotation on another replica loses here, before
 * touching the directory), then the directory is changed, then `PasswordRotated` confirms. When
 * the directory refused or was never reached the intent is abandoned; when the outcome is unknown
 * (time-out, crash, kill -9) the intent stays pending and `finish` writes the same password again
 * (idempotent) and confirms, so no password the directory holds is ever unknown to Coffer.
 */
@Injectable()
export class PasswordRotation {
  constructor(
    private readonly store: RecordStore,
    @Inject(DIRECTORY_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async config(mountUuid: string): Promise<Versioned<'config'>> {
    const config = await this.store.get(mountUuid, 'config', 'config');
    if (!config) throw invalidRequest('the config is currently unset');
    return config;
  }

  /** Binds with the bind password, or the one a pending root rotation may have set already. */
  identity(config: ConfigState): BindIdentity {
    const passwords = [config.password.current, config.password.pending?.password].filter(
      (p): p is string => typeof p === 'string',
    );
    return bindIdentity(config.connection, passwords);
  }

  /** Runs `work` against the configured directory. */
  directory<T>(config: ConfigState, work: Parameters<typeof withDirectory<T>>[2]): Promise<T> {
    return withDirectory(config.connection, this.identity(config), work);
  }

  /**
   * Rotates the password of `record` (the account `accountName`, or the bind account for the
   * config) and answers the new password. Throws ConcurrencyError when another writer got there
   * first (nothing was changed), a DirectoryError (502) when the directory failed.
   */
  async rotate<K extends PasswordKind>(
    mountUuid: string,
    kind: K,
    record: Versioned<K>,
    config: Versioned<'config'>,
    accountName: string,
  ): Promise<string> {
    const password = await this.newPassword(config.state);
    const at = this.runtime.clock().toISOString();
    await this.store.append(mountUuid, kind, record.name, record.version, [
      { type: 'DirectoryPasswordRotationIntended', data: { password, at } },
    ]);
    const intended = record.version + 1;
    try {
      await this.write(kind, config.state, accountName, password);
    } catch (error) {
      const refused = !(error instanceof DirectoryError) || error.applied === 'no';
      if (refused) {
        await this.store
          .append(mountUuid, kind, record.name, intended, [
            { type: 'DirectoryPasswordRotationAbandoned', data: {} },
          ])
          .catch((e: unknown) => {
            if (!isConcurrencyError(e)) throw e;
          });
      }
      throw error;
    }
    await this.confirm(mountUuid, kind, record.name, intended, password);
    return password;
  }

  /** Finishes a pending change of `record`: the pending password is written again, then confirmed. */
  async finish<K extends PasswordKind>(
    mountUuid: string,
    kind: K,
    record: Versioned<K>,
    config: Versioned<'config'>,
    accountName: string,
  ): Promise<void> {
    const pending = passwordOf(record.state)?.pending;
    if (!pending) return;
    // for the bind account itself, the identity already tries the pending password
    await this.write(kind, config.state, accountName, pending.password);
    await this.confirm(mountUuid, kind, record.name, record.version, pending.password);
  }

  /**
   * `record` once no change is in flight: a pending change younger than the grace (another
   * replica is probably still on it) is waited for; an older one is finished here.
   */
  async settled<K extends PasswordKind>(
    mountUuid: string,
    kind: K,
    name: string,
    config: Versioned<'config'>,
    accountName: (state: Versioned<K>) => string,
  ): Promise<Versioned<K> | undefined> {
    const graceMs = this.graceMs(config.state);
    for (;;) {
      const record = await this.store.get(mountUuid, kind, name);
      const pending = record ? passwordOf(record.state)?.pending : undefined;
      if (!record || !pending) return record;
      const age = this.runtime.clock().getTime() - Date.parse(pending.at);
      if (age >= graceMs) {
        try {
          await this.finish(mountUuid, kind, record, config, accountName(record));
        } catch (error) {
          if (!isConcurrencyError(error)) throw error;
        }
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** From the named password policy (core-sys), else by length/formatter. */
  private async newPassword(config: ConfigState): Promise<string> {
    const name = config.passwords.password_policy;
    if (name === '') return generatePassword(config.passwords);
    const { password } = await this.runtime.transport.request(corePasswordGenerate, { name });
    return password;
  }

  /** How long a pending change belongs to whoever started it (its directory call may still run). */
  graceMs(config: ConfigState): number {
    return (Math.min(config.connection.request_timeout, 10) + 2) * 1000;
  }

  private async write(
    kind: PasswordKind,
    config: ConfigState,
    accountName: string,
    password: string,
  ): Promise<void> {
    await this.directory(config, async (client) => {
      const dn =
        kind === 'config'
          ? await findBindEntry(client, config.connection)
          : (await findAccount(client, config.connection, accountName)).dn;
      await setPassword(client, config.connection, dn, password);
    });
  }

  /** Confirms the change; another writer having confirmed the same password already is fine. */
  private async confirm(
    mountUuid: string,
    kind: PasswordKind,
    name: string,
    expected: number,
    password: string,
  ) {
    try {
      await this.store.append(mountUuid, kind, name, expected, [
        { type: 'DirectoryPasswordRotated', data: { at: this.runtime.clock().toISOString() } },
      ]);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
      const now = await this.store.get(mountUuid, kind, name);
      const state = now ? passwordOf(now.state) : null;
      if (!state || state.current !== password || state.pending) throw error;
    }
  }
}
