import { Injectable } from '@nestjs/common';
import { certificatePlace, SealedJson } from '../shared/sealed-json';
import { PkiDb, type PkiTrx } from '../shared/pki.table';

export interface StoredCertificate {
  serial: string;
  certPem: string;
  notAfterMs: number;
  revokedMs: number | null;
  version: number;
}

/** Issued certificates: all SQL of the certificates table. */
@Injectable()
export class CertificateRepository {
  constructor(
    private readonly db: PkiDb,
    private readonly sealed: SealedJson,
  ) {}

  async read(mountUuid: string, serial: string): Promise<StoredCertificate | undefined> {
    const row = await this.db
      .of()
      .selectFrom('certificates')
      .select(['serial', 'sealed', 'not_after_ms', 'revoked_ms', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where('serial', '=', serial)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      serial: row.serial,
      certPem: this.sealed.open<string>(row.sealed, certificatePlace(mountUuid, serial)),
      notAfterMs: row.not_after_ms,
      revokedMs: row.revoked_ms,
      version: row.stream_version,
    };
  }

  async serials(mountUuid: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('certificates')
      .select('serial')
      .where('mount_uuid', '=', mountUuid)
      .orderBy('serial')
      .execute();
    return rows.map((r) => r.serial);
  }

  /** Revoked certificates still on the CRL, oldest revocation first. */
  async revoked(mountUuid: string): Promise<{ serial: string; revokedMs: number }[]> {
    const rows = await this.db
      .of()
      .selectFrom('certificates')
      .select(['serial', 'revoked_ms'])
      .where('mount_uuid', '=', mountUuid)
      .where('revoked_ms', 'is not', null)
      .orderBy('revoked_ms')
      .execute();
    return rows.map((r) => ({ serial: r.serial, revokedMs: r.revoked_ms ?? 0 }));
  }

  /** Certificates that expired before `beforeMs` (tidy's candidates). */
  async expiredBefore(
    mountUuid: string,
    beforeMs: number,
  ): Promise<{ serial: string; revoked: boolean; version: number }[]> {
    const rows = await this.db
      .of()
      .selectFrom('certificates')
      .select(['serial', 'revoked_ms', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .where('not_after_ms', '<', beforeMs)
      .execute();
    return rows.map((r) => ({ serial: r.serial, revoked: r.revoked_ms !== null, version: r.stream_version }));
  }

  async insert(
    trx: PkiTrx,
    mountUuid: string,
    serial: string,
    certPem: string,
    notAfterMs: number,
    version: number,
  ) {
    await this.db
      .of(trx)
      .insertInto('certificates')
      .values({
        mount_uuid: mountUuid,
        serial,
        sealed: this.sealed.seal(certPem, certificatePlace(mountUuid, serial)),
        not_after_ms: notAfterMs,
        revoked_ms: null,
        stream_version: version,
      })
      .execute();
  }

  async markRevoked(trx: PkiTrx, mountUuid: string, serial: string, revokedMs: number, version: number) {
    await this.db
      .of(trx)
      .updateTable('certificates')
      .set({ revoked_ms: revokedMs, stream_version: version })
      .where('mount_uuid', '=', mountUuid)
      .where('serial', '=', serial)
      .execute();
  }

  async remove(trx: PkiTrx, mountUuid: string, serial: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('certificates')
      .where('mount_uuid', '=', mountUuid)
      .where('serial', '=', serial)
      .execute();
  }
}
