import { Injectable } from '@nestjs/common';
import { DocumentCache, type CachedDocument } from './document-cache';
import { documentPlace, SealedJson } from './sealed-json';
import { PkiDb, type PkiTrx } from './pki.table';

/** Kinds of mount-wide or named documents the pki read model keeps. */
export type DocumentKind =
  | 'issuer'
  | 'role'
  | 'crl-config'
  | 'urls'
  | 'crl-state'
  /** a revocation on the unified CRL (named by serial; replicated from the primary) */
  | 'unified-revocation'
  /** a cross-cluster revocation request (named by serial; replicated from the primary) */
  | 'cross-revocation';

/** A document as read; shared with other readers through DocumentCache: never change it. */
export interface Loaded<T> {
  value: T;
  version: number;
}

/** A document's event stream (`pki-<kind>/<mount uuid>/<name>`). */
export const documentStream = (a: { mountUuid: string; kind: DocumentKind; name: string }): string =>
  `pki-${a.kind}/${a.mountUuid}/${a.name}`;

/**
 * The sealed documents of the pki read model: issuer, roles, settings. Reads are served by
 * DocumentCache (opened documents, coherent with the event log across replicas).
 */
@Injectable()
export class DocumentRepository {
  constructor(
    private readonly db: PkiDb,
    private readonly sealed: SealedJson,
    private readonly cache: DocumentCache,
  ) {}

  /**
   * `trx`: read inside an append's transaction, past the cache (a replayed append reads what the
   * previous one of its batch left).
   */
  async load<T>(
    mountUuid: string,
    kind: DocumentKind,
    name = '',
    trx?: PkiTrx,
  ): Promise<Loaded<T> | undefined> {
    if (trx === undefined)
      return (await this.loadMany(mountUuid, [{ kind, name }])).get(`${kind}/${name}`) as
        Loaded<T> | undefined;
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
   * Several documents of a mount in one read (issue and sign read the role, the CA and the URLs
   * on every request), keyed `<kind>/<name>`.
   */
  async loadMany(
    mountUuid: string,
    wanted: { kind: DocumentKind; name: string }[],
  ): Promise<Map<string, Loaded<unknown>>> {
    const byStream = new Map(wanted.map((w) => [documentStream({ mountUuid, ...w }), w]));
    const docs = await this.cache.read([...byStream.keys()], async (missing) => {
      const want = missing.flatMap((s) => byStream.get(s) ?? []);
      const rows = await this.db
        .of()
        .selectFrom('documents')
        .select(['kind', 'name', 'sealed', 'stream_version'])
        .where('mount_uuid', '=', mountUuid)
        .where((eb) => eb.or(want.map((w) => eb.and([eb('kind', '=', w.kind), eb('name', '=', w.name)]))))
        .execute();
      const loaded = new Map<string, CachedDocument>();
      for (const row of rows) {
        const value = this.sealed.open<unknown>(row.sealed, documentPlace(mountUuid, row.kind, row.name));
        const stream = documentStream({ mountUuid, kind: row.kind as DocumentKind, name: row.name });
        loaded.set(stream, { value, version: row.stream_version });
      }
      return loaded;
    });
    const out = new Map<string, Loaded<unknown>>();
    for (const [stream, doc] of docs) {
      const w = byStream.get(stream);
      if (doc && w) out.set(`${w.kind}/${w.name}`, doc);
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

  /** Every document of a kind in a mount, by name (past the cache: the unified revocation lists). */
  async all<T>(mountUuid: string, kind: DocumentKind): Promise<Map<string, T>> {
    const rows = await this.db
      .of()
      .selectFrom('documents')
      .select(['name', 'sealed'])
      .where('mount_uuid', '=', mountUuid)
      .where('kind', '=', kind)
      .execute();
    return new Map(
      rows.map((r) => [r.name, this.sealed.open<T>(r.sealed, documentPlace(mountUuid, kind, r.name))]),
    );
  }

  /** The mounts holding a document of the kind (the mounts with a CRL configuration). */
  async mountsWith(kind: DocumentKind): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('documents')
      .select('mount_uuid')
      .distinct()
      .where('kind', '=', kind)
      .execute();
    return rows.map((r) => r.mount_uuid);
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
