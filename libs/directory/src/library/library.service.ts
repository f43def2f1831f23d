import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  coreLeasesHeld,
  invalidRequest,
  notFound,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { DEFAULT_SET_TTL, type directory } from '@coffer/contracts/directory';
import { isConcurrencyError, retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { DIRECTORY_RUNTIME } from '../directory.di';
import { RecordStore, type Versioned } from '../records/record.store';
import { PasswordRotation } from '../rotation/password-rotation.service';
import { RECORDS_PK } from '../shared/directory.table';
import { accountsToCheckIn, checkOutTtl, directorySetView, isAvailable, setSettings } from './checkout.rules';
import { checkoutLeaseSchema, type CheckoutLease } from './checkout-lease';

const RETRY = { attempts: 10, uniqueConstraints: [RECORDS_PK] };
const NONE_AVAILABLE = 'No service accounts available for check-out.';
/**
 * A performance secondary does not lend the primary's accounts: the check-out's lease would be
 * the secondary's, which the primary's lease check does not see (it would check the account in).
 */
const CHECK_OUT_ON_PRIMARY =
  'this set is replicated from the performance primary: check accounts out on the primary';
/** clock skew between this service and core-sys, allowed for when asking for leases since a time */
const LEASE_CLOCK_SKEW_MS = 60_000;
const LEASE_CHECK_TIMEOUT_MS = 10_000;

/** Library sets: accounts lent one borrower at a time, their password rotated on every check-in. */
@Injectable()
export class LibraryService {
  private readonly logger = new Logger('directory.library');

  constructor(
    private readonly store: RecordStore,
    private readonly rotation: PasswordRotation,
    @Inject(DIRECTORY_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async list(req: RequestOf<typeof directory.setList>): Promise<ResponseOf<typeof directory.setList>> {
    const keys = await this.store.names(req.mount.uuid, 'set');
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async read(req: RequestOf<typeof directory.setRead>): Promise<ResponseOf<typeof directory.setRead>> {
    const set = await this.store.get(req.mount.uuid, 'set', req.params.name.toLowerCase());
    if (!set) throw notFound();
    return { data: directorySetView(set.state) };
  }

  /**
   * Creates or updates a set. New accounts are enrolled (refused when another set has them) and
   * checked in, which gives them a password only Coffer knows; removed accounts must be checked in.
   * A failure enrolling leaves the accounts it enrolled released and the set as it was.
   */
  async write(req: RequestOf<typeof directory.setWrite>): Promise<ResponseOf<typeof directory.setWrite>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name.toLowerCase();
    const config = await this.rotation.config(mountUuid);
    const existing = await this.store.get(mountUuid, 'set', name);
    const settings = setSettings(existing?.state, req.body, DEFAULT_SET_TTL);
    const before = existing?.state.service_account_names ?? [];
    const adding = settings.service_account_names.filter((a) => !before.includes(a));
    const removing = before.filter((a) => !settings.service_account_names.includes(a));
    for (const account of await this.store.getMany(mountUuid, 'account', adding))
      if (account.state.set !== name)
        throw invalidRequest(`"${account.name}" is already managed by another set`);
    for (const account of await this.store.getMany(mountUuid, 'account', removing))
      if (account.state.checkout)
        throw invalidRequest(`"${account.name}" can't be deleted because it is currently checked out'`);

    const enrolled: string[] = [];
    try {
      for (const accountName of adding) {
        let account = await this.store.get(mountUuid, 'account', accountName);
        if (!account) {
          await this.store.append(mountUuid, 'account', accountName, 0, [
            { type: 'DirectoryAccountEnrolled', data: { set: name } },
          ]);
          enrolled.push(accountName);
          account = await this.store.get(mountUuid, 'account', accountName);
        }
        if (account && account.state.password.current === null && !account.state.password.pending)
          await this.rotation.rotate(mountUuid, 'account', account, config, accountName);
      }
    } catch (error) {
      await this.release(mountUuid, enrolled);
      if (isConcurrencyError(error)) throw invalidRequest('the set is being changed concurrently, try again');
      throw error;
    }
    await this.release(mountUuid, removing);
    await retryOnConflict(async () => {
      const head = await this.store.get(mountUuid, 'set', name);
      const { kind: _kind, ...data } = settings;
      await this.store.append(mountUuid, 'set', name, head?.version ?? 0, [
        { type: 'DirectorySetWritten', data },
      ]);
    }, RETRY);
    return {};
  }

  async delete(req: RequestOf<typeof directory.setDelete>): Promise<ResponseOf<typeof directory.setDelete>> {
    const mountUuid = req.mount.uuid;
    const name = req.params.name.toLowerCase();
    const set = await this.store.get(mountUuid, 'set', name);
    if (!set) return {};
    const accounts = await this.store.getMany(mountUuid, 'account', set.state.service_account_names);
    for (const account of accounts)
      if (account.state.checkout)
        throw invalidRequest(`"${account.name}" can't be deleted because it is currently checked out'`);
    await this.store.append(mountUuid, 'set', name, set.version, [
      { type: 'DirectoryRecordDeleted', data: {} },
    ]);
    await this.release(mountUuid, set.state.service_account_names);
    return {};
  }

  /**
   * Lends the first available account: `AccountCheckedOut` is appended at the version read, so of
   * concurrent check-outs (any replica) one wins each account and the others move on; none left
   * is a 400.
   */
  async checkOut(
    req: RequestOf<typeof directory.checkOut>,
    caller: CallerContext,
  ): Promise<ResponseOf<typeof directory.checkOut>> {
    const mountUuid = req.mount.uuid;
    const setName = req.params.name.toLowerCase();
    const set = await this.store.get(mountUuid, 'set', setName);
    if (!set) throw invalidRequest(`"${setName}" doesn't exist`);
    if (!(await this.store.writableHere(mountUuid, 'set', set))) throw invalidRequest(CHECK_OUT_ON_PRIMARY);
    const ttl = checkOutTtl(set.state, req.body.ttl);
    const accounts = await this.accountsOf(mountUuid, set);
    for (const name of set.state.service_account_names) {
      const account = accounts.get(name);
      if (!account || !isAvailable(account.state)) continue;
      const checkout = {
        checkout_id: randomUUID(),
        entity_id: caller.entityId ?? '',
        token_ref: caller.tokenRef ?? '',
        accessor: caller.accessor ?? '',
        at: this.runtime.clock().toISOString(),
      };
      try {
        await this.store.append(mountUuid, 'account', name, account.version, [
          { type: 'DirectoryAccountCheckedOut', data: checkout },
        ]);
      } catch (error) {
        if (isConcurrencyError(error)) continue;
        throw error;
      }
      const internal: CheckoutLease = { set: setName, account: name, checkout_id: checkout.checkout_id };
      return {
        data: { service_account_name: name, password: account.state.password.current ?? '' },
        secret: { ttl, max_ttl: set.state.max_ttl, renewable: true, internal },
      };
    }
    throw invalidRequest(NONE_AVAILABLE);
  }

  async checkIn(
    req: RequestOf<typeof directory.checkIn>,
    caller: CallerContext,
    force: boolean,
  ): Promise<ResponseOf<typeof directory.checkIn>> {
    const mountUuid = req.mount.uuid;
    const setName = req.params.name.toLowerCase();
    const set = await this.store.get(mountUuid, 'set', setName);
    if (!set) throw invalidRequest(`"${setName}" doesn't exist`);
    const config = await this.rotation.config(mountUuid);
    const accounts = await this.accountsOf(mountUuid, set);
    const states = new Map([...accounts].map(([k, v]) => [k, v.state]));
    const borrower = { entityId: caller.entityId ?? '', tokenRef: caller.tokenRef ?? '' };
    const toCheckIn = accountsToCheckIn(set.state, states, req.body.service_account_names, borrower, force);
    const checkIns: string[] = [];
    for (const name of toCheckIn) {
      const checkoutId = accounts.get(name)?.state.checkout?.checkout_id;
      if (checkoutId && (await this.endCheckOut(mountUuid, name, checkoutId, config))) checkIns.push(name);
    }
    return { data: { check_ins: checkIns } };
  }

  async status(req: RequestOf<typeof directory.status>): Promise<ResponseOf<typeof directory.status>> {
    const mountUuid = req.mount.uuid;
    const setName = req.params.name.toLowerCase();
    const set = await this.store.get(mountUuid, 'set', setName);
    if (!set) throw invalidRequest(`"${setName}" doesn't exist`);
    const accounts = await this.accountsOf(mountUuid, set);
    const data: Record<string, unknown> = {};
    for (const name of set.state.service_account_names) {
      const checkout = accounts.get(name)?.state.checkout ?? null;
      const status: Record<string, unknown> = { available: checkout === null };
      // the token itself never reaches the engine: its accessor names the borrowing token
      if (checkout?.accessor) status['borrower_client_token'] = checkout.accessor;
      if (checkout?.entity_id) status['borrower_entity_id'] = checkout.entity_id;
      Object.defineProperty(data, name, {
        value: status,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return { data };
  }

  /** Lease renewal: the set's ttl again, while the check-out lasts. */
  async renew(mountUuid: string, internal: unknown): Promise<{ ttl: number; max_ttl: number }> {
    const lease = checkoutLeaseSchema.parse(internal);
    const [set, account] = await Promise.all([
      this.store.get(mountUuid, 'set', lease.set),
      this.store.get(mountUuid, 'account', lease.account),
    ]);
    if (!set) throw invalidRequest(`"${lease.set}" doesn't exist`);
    if (account?.state.checkout?.checkout_id !== lease.checkout_id)
      throw invalidRequest(`${lease.account} is already checked in, please call check-out to regain it`);
    return { ttl: set.state.ttl, max_ttl: set.state.max_ttl };
  }

  /** Lease end (revocation or expiry) is the automatic check-in; idempotent. */
  async revoke(mountUuid: string, internal: unknown): Promise<void> {
    const lease = checkoutLeaseSchema.parse(internal);
    const config = await this.store.get(mountUuid, 'config', 'config');
    if (!config) return;
    // an account replayed from a primary is the primary's to check in (docs/replication.md)
    const account = await this.store.get(mountUuid, 'account', lease.account);
    if (account && !(await this.store.writableHere(mountUuid, 'account', account))) return;
    await this.endCheckOut(mountUuid, lease.account, lease.checkout_id, config);
  }

  /**
   * The lease check of a check-out past its grace (rotation sweep): core-sys holds its lease, so
   * the lease alone ends it from now on; or it never got one (the gateway gave up, or a kill -9 came
   * between the answer and the registration), so nobody holds the account: it is checked in.
   */
  async settleCheckOut(mountUuid: string, account: Versioned<'account'>): Promise<boolean> {
    const checkout = account.state.checkout;
    if (!checkout?.at || checkout.leased) return false;
    const since = Math.max(0, Date.parse(checkout.at) - LEASE_CLOCK_SKEW_MS);
    const answer = await this.runtime.transport.request(
      coreLeasesHeld,
      { mount_uuid: mountUuid, field: 'checkout_id', values: [checkout.checkout_id], since },
      { timeoutMs: LEASE_CHECK_TIMEOUT_MS },
    );
    if (answer.held.includes(checkout.checkout_id)) {
      await this.store.append(mountUuid, 'account', account.name, account.version, [
        { type: 'DirectoryCheckOutLeased', data: { checkout_id: checkout.checkout_id } },
      ]);
      return true;
    }
    const config = await this.store.get(mountUuid, 'config', 'config');
    if (!config) return false;
    this.logger.warn(
      `directory account ${account.name} was checked out but no lease was registered: checking it in`,
    );
    return this.endCheckOut(mountUuid, account.name, checkout.checkout_id, config);
  }

  /** Checks the account in (its password rotated) if `checkoutId` is still its check-out. */
  private async endCheckOut(
    mountUuid: string,
    name: string,
    checkoutId: string,
    config: Versioned<'config'>,
  ): Promise<boolean> {
    return retryOnConflict(async () => {
      const account = await this.rotation.settled(mountUuid, 'account', name, config, (a) => a.name);
      if (account?.state.checkout?.checkout_id !== checkoutId) return false;
      await this.rotation.rotate(mountUuid, 'account', account, config, name);
      return true;
    }, RETRY);
  }

  private async accountsOf(
    mountUuid: string,
    set: Versioned<'set'>,
  ): Promise<Map<string, Versioned<'account'>>> {
    const accounts = await this.store.getMany(mountUuid, 'account', set.state.service_account_names);
    return new Map(accounts.map((a) => [a.name, a]));
  }

  private async release(mountUuid: string, names: readonly string[]): Promise<void> {
    for (const account of await this.store.getMany(mountUuid, 'account', names)) {
      await this.store
        .append(mountUuid, 'account', account.name, account.version, [
          { type: 'DirectoryRecordDeleted', data: {} },
        ])
        .catch((error: unknown) => {
          if (!isConcurrencyError(error)) throw error;
        });
    }
  }
}
