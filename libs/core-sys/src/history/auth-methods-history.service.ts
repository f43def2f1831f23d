import { Inject, Injectable } from '@nestjs/common';
import { notFound } from '@coffer/contracts';
import type { EventStore, StoredEvent } from '@coffer/event-store';
import {
  normalizeRoleName,
  evolveRole as evolveApproleRole,
  roleView as approleRoleView,
} from '../approle/approle.decider';
import type { RoleState as ApproleRoleState } from '../approle/approle.decider';
import { APPROLE_ROLE_LOG } from '../approle/approle.events';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { namespaceOf, type MountRecord } from '../mounts/mount.model';
import { evolveRole as evolveTokenRole, roleView as tokenRoleView } from '../token-roles/token-role.decider';
import type { TokenRoleState } from '../token-roles/token-role.decider';
import { TOKEN_ROLE_LOG, tokenRoleStream } from '../token-roles/token-role.events';
import {
  evolve as evolveUser,
  normalizeUsername,
  userView,
  type UserState,
} from '../userpass/userpass.decider';
import { USERPASS_LOG, userStream } from '../userpass/userpass.events';

/** An auth method's path at an instant: its state, or undefined when the path is not one of these. */
export type AuthMethodState = Record<string, unknown> | undefined;

/**
 * sys/history/state of auth methods' roles and users (core-sys's own log, folded up to a WAL
 * index): AppRole `role`, `role/<name>`, `role/<name>/role-id`; the token store's `roles`,
 * `roles/<name>`; userpass `users`, `users/<name>`. Each record is its own stream, folded with
 * the aggregate's own evolve and shown with the live read's view: secret ids (only their HMACs
 * are logged, in other streams) and password hashes are never read out. LISTs are each record
 * stream's last event up to the instant (`EventStore.namesAt`, one scan of the core_sys log by
 * stream prefix), sorted as the live LISTs (404 when empty, as they).
 */
@Injectable()
export class AuthMethodsHistory {
  constructor(@Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore) {}

  /** The mount of `path` then (an auth method of the caller's namespace), and the path inside it. */
  private mountOf(mounts: readonly MountRecord[], path: string, ns: string) {
    let best: MountRecord | undefined;
    for (const m of mounts) {
      if (namespaceOf(m) !== ns || !m.path.startsWith('auth/') || !`${path}/`.startsWith(m.path)) continue;
      if (!best || m.path.length > best.path.length) best = m;
    }
    return best && { mount: best, rest: `${path}/`.slice(best.path.length).replace(/\/+$/, '') };
  }

  async stateAt(
    mounts: readonly MountRecord[],
    path: string,
    ns: string,
    wal: number,
    list: boolean,
  ): Promise<AuthMethodState> {
    const found = this.mountOf(mounts, path, ns);
    if (!found) return undefined;
    const { mount, rest } = found;
    const [head, name, field, ...more] = rest.split('/');
    if (more.length > 0) return undefined;
    switch (mount.type) {
      case 'approle':
        if (head !== 'role') return undefined;
        if (name === undefined)
          return this.listed(
            APPROLE_ROLE_LOG.streamOf({ mountUuid: mount.uuid, roleName: '' }),
            wal,
            (last) => APPROLE_ROLE_LOG.decode(last).type !== 'ApproleRoleDeleted',
          );
        if (field === undefined && !list) return approleRoleView(await this.approleRole(mount, name, wal));
        if (field === 'role-id' && !list)
          return { role_id: (await this.approleRole(mount, name, wal)).roleId };
        return undefined;
      case 'token':
        if (head !== 'roles' || field !== undefined) return undefined;
        if (name === undefined)
          return this.listed(
            tokenRoleStream(''),
            wal,
            (last) => TOKEN_ROLE_LOG.decode(last).type !== 'TokenRoleDeleted',
          );
        if (list) return undefined;
        return tokenRoleView(
          orNotFound(
            await this.fold<TokenRoleState>(tokenRoleStream(name), wal, (s, e) =>
              evolveTokenRole(s, TOKEN_ROLE_LOG.decode(e)),
            ),
          ),
        );
      case 'userpass': {
        if (head !== 'users' || field !== undefined) return undefined;
        if (name === undefined)
          return this.listed(
            userStream(mount.uuid, ''),
            wal,
            (last) => USERPASS_LOG.decode(last).type !== 'UserpassUserDeleted',
          );
        if (list) return undefined;
        const user = await this.fold<UserState>(
          userStream(mount.uuid, normalizeUsername(name)),
          wal,
          (s, e) => evolveUser(s, USERPASS_LOG.decode(e)),
        );
        return userView(orNotFound(user).settings);
      }
      default:
        return undefined;
    }
  }

  private async approleRole(mount: MountRecord, name: string, wal: number): Promise<ApproleRoleState> {
    const stream = APPROLE_ROLE_LOG.streamOf({ mountUuid: mount.uuid, roleName: normalizeRoleName(name) });
    return orNotFound(
      await this.fold<ApproleRoleState>(stream, wal, (s, e) =>
        evolveApproleRole(s, APPROLE_ROLE_LOG.decode(e)),
      ),
    );
  }

  /** A record's stream folded up to event `wal` (null: absent or deleted then). */
  private async fold<S>(
    stream: string,
    wal: number,
    step: (s: S | null, e: StoredEvent) => S | null,
  ): Promise<S | null> {
    let state: S | null = null;
    for (const event of await this.store.readStream(stream)) {
      if (event.wal > wal) break;
      state = step(state, event);
    }
    return state;
  }

  /** The LIST then: the streams whose last event up to `wal` left the record (`alive`); 404 when none, as live. */
  private async listed(
    prefix: string,
    wal: number,
    alive: (last: StoredEvent) => boolean,
  ): Promise<{ keys: string[] }> {
    const { names } = await this.store.namesAt(prefix, wal, alive);
    if (names.length === 0) throw notFound();
    return { keys: names.sort() };
  }
}

function orNotFound<S>(state: S | null): S {
  if (state === null) throw notFound();
  return state;
}
