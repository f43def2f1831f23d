import { Injectable } from '@nestjs/common';
import type { Selectable } from 'kysely';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import { mountRecordSchema, type MountRecord } from './mount.model';
import type { MountsTable } from './mounts.table';

const COLUMNS = [
  'uuid',
  'path',
  'table_kind',
  'type',
  'description',
  'accessor',
  'options',
  'default_lease_ttl',
  'max_lease_ttl',
  'force_no_cache',
  'listing_visibility',
  'token_type',
  'audit_non_hmac_request_keys',
  'audit_non_hmac_response_keys',
  'local',
  'seal_wrap',
  'external_entropy_access',
  'tainted',
  'namespace',
] as const;

type Row = Pick<Selectable<MountsTable>, (typeof COLUMNS)[number]>;

function toRecord(row: Row): MountRecord {
  return mountRecordSchema.parse({
    uuid: row.uuid,
    path: row.path,
    table: row.table_kind,
    type: row.type,
    description: row.description,
    accessor: row.accessor,
    options: row.options,
    config: {
      defaultLeaseTtl: row.default_lease_ttl,
      maxLeaseTtl: row.max_lease_ttl,
      forceNoCache: row.force_no_cache,
      listingVisibility: row.listing_visibility,
      tokenType: row.token_type,
      auditNonHmacRequestKeys: row.audit_non_hmac_request_keys,
      auditNonHmacResponseKeys: row.audit_non_hmac_response_keys,
    },
    local: row.local,
    sealWrap: row.seal_wrap,
    externalEntropyAccess: row.external_entropy_access,
    ...(row.tainted ? { tainted: true } : {}),
    ...(row.namespace !== '' ? { namespace: row.namespace } : {}),
  });
}

export interface MountTableSnapshot {
  mounts: MountRecord[];
  /** version of the mounts/table stream the snapshot reflects (at least) */
  revision: number;
}

/** All SQL of the mount-table read model. */
@Injectable()
export class MountsRepository {
  constructor(private readonly db: CoreSysDb) {}

  /**
   * The revision is read before the rows: the rows are then at least that new, so deciding on
   * them and appending at that revision either succeeds on current data or conflicts.
   */
  async snapshot(): Promise<MountTableSnapshot> {
    const revision = await this.revision();
    const rows = await this.db
      .of()
      .selectFrom('mounts')
      .select(COLUMNS)
      .orderBy('namespace')
      .orderBy('path')
      .execute();
    return { mounts: rows.map(toRecord), revision };
  }

  async revision(trx?: CoreSysTrx): Promise<number> {
    const row = await this.db
      .of(trx)
      .selectFrom('mount_table_revision')
      .select('revision')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.revision ?? 0;
  }

  async byAccessor(accessor: string): Promise<MountRecord | undefined> {
    const row = await this.db
      .of()
      .selectFrom('mounts')
      .select(COLUMNS)
      .where('accessor', '=', accessor)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async byPath(path: string, namespace = ''): Promise<MountRecord | undefined> {
    const row = await this.db
      .of()
      .selectFrom('mounts')
      .select(COLUMNS)
      .where('path', '=', path)
      .where('namespace', '=', namespace)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async insert(trx: CoreSysTrx, m: MountRecord, at: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('mounts')
      .values({
        uuid: m.uuid,
        path: m.path,
        table_kind: m.table,
        type: m.type,
        description: m.description,
        accessor: m.accessor,
        options: JSON.stringify(m.options),
        default_lease_ttl: m.config.defaultLeaseTtl,
        max_lease_ttl: m.config.maxLeaseTtl,
        force_no_cache: m.config.forceNoCache,
        listing_visibility: m.config.listingVisibility,
        token_type: m.config.tokenType,
        audit_non_hmac_request_keys: JSON.stringify(m.config.auditNonHmacRequestKeys),
        audit_non_hmac_response_keys: JSON.stringify(m.config.auditNonHmacResponseKeys),
        local: m.local,
        seal_wrap: m.sealWrap,
        external_entropy_access: m.externalEntropyAccess,
        enabled_at: at,
        namespace: m.namespace ?? '',
      })
      .execute();
  }

  async updateTunables(
    trx: CoreSysTrx,
    m: Pick<MountRecord, 'uuid' | 'description' | 'config' | 'options'>,
  ): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('mounts')
      .set({
        description: m.description,
        options: JSON.stringify(m.options),
        default_lease_ttl: m.config.defaultLeaseTtl,
        max_lease_ttl: m.config.maxLeaseTtl,
        force_no_cache: m.config.forceNoCache,
        listing_visibility: m.config.listingVisibility,
        token_type: m.config.tokenType,
        audit_non_hmac_request_keys: JSON.stringify(m.config.auditNonHmacRequestKeys),
        audit_non_hmac_response_keys: JSON.stringify(m.config.auditNonHmacResponseKeys),
      })
      .where('uuid', '=', m.uuid)
      .execute();
  }

  async taint(trx: CoreSysTrx, uuid: string): Promise<void> {
    await this.db.of(trx).updateTable('mounts').set({ tainted: true }).where('uuid', '=', uuid).execute();
  }

  async untaint(trx: CoreSysTrx, uuid: string): Promise<void> {
    await this.db.of(trx).updateTable('mounts').set({ tainted: false }).where('uuid', '=', uuid).execute();
  }

  /** A remount: new path and namespace, serving again. */
  async move(trx: CoreSysTrx, m: { uuid: string; path: string; namespace: string }): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('mounts')
      .set({ path: m.path, namespace: m.namespace, tainted: false })
      .where('uuid', '=', m.uuid)
      .execute();
  }

  async delete(trx: CoreSysTrx, uuid: string): Promise<void> {
    await this.db.of(trx).deleteFrom('mounts').where('uuid', '=', uuid).execute();
  }

  async setRevision(trx: CoreSysTrx, revision: number): Promise<void> {
    await this.db.of(trx).updateTable('mount_table_revision').set({ revision }).where('id', '=', 1).execute();
  }
}
