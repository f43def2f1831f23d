import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { LeaseState } from './lease.decider';
import { LEASE_COLUMNS, type LeaseRow } from './lease.table';

export interface VersionedLease {
  state: LeaseState;
  version: number;
}

/** All SQL of the lease read model; the engine's internal data is sealed by the barrier here. */
@Injectable()
export class LeaseRepository {
  constructor(
    private readonly db: CoreSysDb,
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async find(leaseId: string, trx?: CoreSysTrx): Promise<VersionedLease | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('leases')
      .select(LEASE_COLUMNS)
      .where('lease_id', '=', leaseId)
      .executeTakeFirst();
    return row && this.toLease(row);
  }

  /** How many leases exist, and how many of them could not be revoked (the metrics' gauges). */
  async counts(): Promise<{ total: number; irrevocable: number }> {
    const row = await this.db
      .of()
      .selectFrom('leases')
      .select((eb) => [
        eb.fn.countAll<string>().as('total'),
        eb.fn.count<string>('lease_id').filterWhere('irrevocable', '=', true).as('irrevocable'),
      ])
      .executeTakeFirst();
    return { total: Number(row?.total ?? 0), irrevocable: Number(row?.irrevocable ?? 0) };
  }

  /** Ids under a prefix (a plain string prefix, as Vault's revoke-prefix matches). */
  async idsWithPrefix(prefix: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select('lease_id')
      .where('lease_id', 'like', `${escapeLike(prefix)}%`)
      .orderBy('lease_id')
      .execute();
    return rows.map((r) => r.lease_id);
  }

  async idsOfMount(mountUuid: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select('lease_id')
      .where('mount_uuid', '=', mountUuid)
      .execute();
    return rows.map((r) => r.lease_id);
  }

  async idsOfTokens(accessors: readonly string[]): Promise<string[]> {
    if (accessors.length === 0) return [];
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select('lease_id')
      .where('token_accessor', 'in', [...accessors])
      .execute();
    return rows.map((r) => r.lease_id);
  }

  /** Leases whose revocation is due (expired, and past their retry back-off), soonest first. */
  async due(now: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select('lease_id')
      .where('irrevocable', '=', false)
      .where('expires_at', '<=', now)
      .where('next_attempt_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.lease_id);
  }

  async irrevocable(limit: number): Promise<LeaseState[]> {
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select(LEASE_COLUMNS)
      .where('irrevocable', '=', true)
      // Vault sorts by expire time, then lease id
      .orderBy('expires_at')
      .orderBy('lease_id')
      .limit(limit)
      .execute();
    return rows.map((r) => this.toLease(r).state);
  }

  async save(trx: CoreSysTrx, state: LeaseState, version: number, exists: boolean): Promise<void> {
    const row = this.toRow(state, version);
    if (!exists) {
      await this.db.of(trx).insertInto('leases').values(row).execute();
      return;
    }
    const { lease_id: _id, ...rest } = row;
    await this.db.of(trx).updateTable('leases').set(rest).where('lease_id', '=', state.leaseId).execute();
  }

  async delete(trx: CoreSysTrx, leaseId: string): Promise<void> {
    await this.db.of(trx).deleteFrom('leases').where('lease_id', '=', leaseId).execute();
  }

  /** The engine internals of a mount's leases issued since `since` (ms): engines' recovery passes ask. */
  async internalsOfMount(mountUuid: string, since: number): Promise<Record<string, unknown>[]> {
    const rows = await this.db
      .of()
      .selectFrom('leases')
      .select(['lease_id', 'internal'])
      .where('mount_uuid', '=', mountUuid)
      .where('issued_at', '>=', since)
      .execute();
    return rows.map(
      (row) =>
        JSON.parse(
          this.runtime.cipher
            .decrypt(Buffer.from(row.internal, 'base64'), this.aad(row.lease_id))
            .toString('utf8'),
        ) as Record<string, unknown>,
    );
  }

  private aad(leaseId: string): Buffer {
    return Buffer.from(`lease/${leaseId}`);
  }

  private toRow(state: LeaseState, version: number): LeaseRow {
    const sealed = this.runtime.cipher.encrypt(
      Buffer.from(JSON.stringify(state.internal)),
      this.aad(state.leaseId),
    );
    return {
      lease_id: state.leaseId,
      path: state.path,
      mount_uuid: state.mountUuid,
      mount_accessor: state.mountAccessor,
      mount_path: state.mountPath,
      mount_type: state.mountType,
      service: state.service,
      token_accessor: state.tokenAccessor,
      renewable: state.renewable,
      ttl: state.ttl,
      issued_at: state.issuedAt,
      expires_at: state.expiresAt,
      max_expires_at: state.maxExpiresAt,
      last_renewal: state.lastRenewal,
      attempts: state.attempts,
      next_attempt_at: state.nextAttemptAt,
      irrevocable: state.irrevocable,
      last_error: state.lastError,
      internal: sealed.toString('base64'),
      version,
    };
  }

  private toLease(row: LeaseRow): VersionedLease {
    const internal = this.runtime.cipher.decrypt(Buffer.from(row.internal, 'base64'), this.aad(row.lease_id));
    return {
      version: row.version,
      state: {
        leaseId: row.lease_id,
        path: row.path,
        mountUuid: row.mount_uuid,
        mountAccessor: row.mount_accessor,
        mountPath: row.mount_path,
        mountType: row.mount_type,
        service: row.service,
        tokenAccessor: row.token_accessor,
        renewable: row.renewable,
        ttl: row.ttl,
        issuedAt: row.issued_at,
        expiresAt: row.expires_at,
        maxExpiresAt: row.max_expires_at,
        lastRenewal: row.last_renewal,
        attempts: row.attempts,
        nextAttemptAt: row.next_attempt_at,
        irrevocable: row.irrevocable,
        lastError: row.last_error,
        internal: JSON.parse(internal.toString('utf8')) as Record<string, unknown>,
      },
    };
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
