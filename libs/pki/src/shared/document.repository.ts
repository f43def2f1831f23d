import { Injectable } from '@nestjs/common';
import { documentPlace, SealedJson } from './sealed-json';
import { PkiDb, type PkiTrx } from './pki.table';

/** Kinds of mount-wide or named documents the pki read model keeps. */
export type DocumentKind = 'issuer' | 'role' | 'crl-config' | 'urls' | 'crl-state';

export interface Loaded<T> {
  value: T;
  version: number;
}

/** The sealed documents of the pki read model: issuer, roles, settings. */
@Injectable()
export class DocumentRepository {
  constructor(
    private readonly db: PkiDb,
    private readonly sealed: SealedJson,
  ) {}

  /** `trx`: read inside an append's transaction (a replayed append reads what the previous left). */
  async load<T>(
    mountUuid: string,
    kind: DocumentKind,
    name = '',
    trx?: PkiTrx,
  ): Promise<Loaded<T> | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('documents')
      .select(['sealed', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
    if (!row) return undefined;
    const value = this.sealed.open<T>(row.sealed, documentPlace(mountUuid, kind, name));
    return { value, version: row.stream_version };
  }

  /**
   * Several documents of a mount in one round trip (issue and sign read the role, the CA and the
   * URLs on every request), keyed `<kind>/<name>`.
   */
  async loadMany(
    mountUuid: string,
    wanted: { kind: DocumentKind; name: string }[],
  ): Promise<Map<string, Loaded<unknown>>> {
    const rows = await this.db
      .of()
      .selectFrom('documents')
      .select(['kind', 'name', 'sealed', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where((eb) => eb.or(wanted.map((w) => eb.and([eb('kind', '=', w.kind), eb('name', '=', w.name)]))))
      .execute();
    const out = new Map<string, Loaded<unknown>>();
    for (const row of rows) {
      const value = this.sealed.open<unknown>(row.sealed, documentPlace(mountUuid, row.kind, row.name));
      out.set(`${row.kind}/${row.name}`, { value, version: row.stream_version });
    }
    return out;
  }

  async names(mountUuid: string, kind: DocumentKind): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('documents')
      .select('name')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  async put(
    trx: PkiTrx,
    mountUuid: string,
    kind: DocumentKind,
    name: string,
    value: unknown,
    version: number,
  ) {
    const sealed = this.sealed.seal(value, documentPlace(mountUuid, kind, name));
    await this.db
      .of(trx)
      .insertInto('documents')
      .values({ mount_uuid: mountUuid, kind, name, sealed, stream_version: version })
      .onConflict((oc) =>
        oc.columns(['mount_uuid', 'kind', 'name']).doUpdateSet({ sealed, stream_version: version }),
      )
      .execute();
  }

  async remove(trx: PkiTrx, mountUuid: string, kind: DocumentKind, name: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('documents')
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }

  /** Whether the mount has anything in the read model. */
  async hasAny(mountUuid: string): Promise<boolean> {
    const doc = await this.db
      .of()
      .selectFrom('documents')
      .select('kind')
      .where('mount_uuid', '=', mountUuid)
      .limit(1)
      .executeTakeFirst();
    if (doc) return true;
    const cert = await this.db
      .of()
      .selectFrom('certificates')
      .select('serial')
      .where('mount_uuid', '=', mountUuid)
      .limit(1)
      .executeTakeFirst();
    return cert !== undefined;
  }

  /** Everything of a mount, when the mount is disabled. */
  async purgeMount(trx: PkiTrx, mountUuid: string): Promise<void> {
    await this.db.of(trx).deleteFrom('documents').where('mount_uuid', '=', mountUuid).execute();
    await this.db.of(trx).deleteFrom('certificates').where('mount_uuid', '=', mountUuid).execute();
  }
}
