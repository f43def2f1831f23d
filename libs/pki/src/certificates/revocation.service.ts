import { Inject, Injectable, Logger } from '@nestjs/common';
import { invalidRequest, notFound, type MountInfo, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki } from '@coffer/contracts/pki';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SettingsService } from '../settings/settings.service';
import { normalizeSerial } from '../crypto/pem';
import { CaStore } from '../issuer/ca-store';
import { PKI_RUNTIME } from '../pki.di';
import { UnifiedRevocationService } from '../unified/unified-revocation.service';
import { CertificateEventLog } from './certificate.projection';
import { CertificateRepository } from './certificate.repository';

export interface RevocationResult {
  revokedAtMs: number | null;
}

/** Vault's warning on a serial queued for the cluster that issued it. */
export const CROSS_CLUSTER_PENDING =
  'Revocation request was not found on this present node. This request will be in a pending state until the PR cluster which issued this certificate sees the request and revokes the certificate. If no online cluster has this certificate, the request will eventually be removed without revoking any certificates.';

/** The CA's own serial is never put on its CRL by a revoke (here or asked of another cluster). */
function refuseCa(ca: { cert: { serialNumber: string } } | undefined, serial: string): void {
  if (
    ca &&
    ca.cert.serialNumber.toLowerCase().replace(/^0+/, '') === serial.replace(/:/g, '').replace(/^0+/, '')
  )
    throw invalidRequest('adding CA to CRL is not allowed');
}

const revocationTimes = (ms: number) => {
  const seconds = Math.floor(ms / 1000);
  return {
    revocation_time: seconds,
    revocation_time_rfc3339: new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'),
  };
};

/** revoke, the lease revocation of generate_lease certificates, tidy, and the stored certificates. */
@Injectable()
export class RevocationService {
  private readonly logger = new Logger('PkiRevocation');

  constructor(
    private readonly certs: CertificateRepository,
    private readonly log: CertificateEventLog,
    private readonly cas: CaStore,
    private readonly settings: SettingsService,
    private readonly unified: UnifiedRevocationService,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async revoke(req: RequestOf<typeof pki.revoke>): Promise<ResponseOf<typeof pki.revoke>> {
    const input = req.body.serial_number;
    if (input === '') throw invalidRequest('The serial number must be provided');
    const serial = normalizeSerial(input);
    if (!serial) throw invalidRequest(`certificate with serial ${input} not found.`);
    if (!(await this.certs.read(req.mount.uuid, serial)))
      return this.revokeElsewhere(req.mount, serial, input);
    const { revokedAtMs } = await this.revokeSerial(req.mount.uuid, serial, input, false, req.mount);
    if (revokedAtMs === null) return {};
    return { data: revocationTimes(revokedAtMs) };
  }

  /**
   * A serial this cluster did not issue (Vault's order): revoked already on another cluster (its
   * unified entry's time), else with cross_cluster_revocation queued for the cluster that issued
   * it (`state: pending`), else not found.
   */
  private async revokeElsewhere(
    mount: MountInfo,
    serial: string,
    shown: string,
  ): Promise<ResponseOf<typeof pki.revoke>> {
    refuseCa(await this.cas.find(mount.uuid), serial);
    const config = await this.settings.crlConfig(mount.uuid);
    if (config.unified_crl) {
      const entry = await this.unified.entry(mount.uuid, serial);
      if (entry) return { data: revocationTimes(entry.revokedAtMs) };
    }
    if (!config.cross_cluster_revocation) throw invalidRequest(`certificate with serial ${shown} not found.`);
    await this.unified.request(mount.uuid, serial, mount);
    return { data: { state: 'pending' }, warnings: [CROSS_CLUSTER_PENDING] };
  }

  /**
   * Marks a certificate revoked (idempotent: a second revocation answers the first time) and
   * rotates the CRL. Expired certificates are left alone, as Vault does.
   */
  async revokeSerial(
    mountUuid: string,
    serial: string,
    shown = serial,
    allowCa = false,
    mount?: MountInfo,
  ): Promise<RevocationResult> {
    const ca = await this.cas.find(mountUuid);
    if (!allowCa) refuseCa(ca, serial);
    const now = this.runtime.clock().getTime();
    const result = await retryOnConflict(async () => {
      const cert = await this.certs.read(mountUuid, serial);
      if (!cert) throw invalidRequest(`certificate with serial ${shown} not found.`);
      if (cert.revokedMs !== null) return { revokedAtMs: cert.revokedMs, fresh: false };
      if (cert.notAfterMs < now) return { revokedAtMs: null, fresh: false };
      await this.log.append({ mountUuid, serial }, cert.version, [
        { type: 'CertificateRevoked', data: { revokedAtMs: now } },
      ]);
      return { revokedAtMs: now, fresh: true };
    });
    if (result.fresh) {
      await this.settings.rotate(mountUuid, now);
      if ((await this.settings.crlConfig(mountUuid)).unified_crl)
        await this.recordUnified(
          mountUuid,
          { serial, revokedAtMs: now, issuerKeyId: ca?.keyId ?? '' },
          mount,
        );
    }
    return { revokedAtMs: result.revokedAtMs };
  }

  /**
   * The revocation stands here whatever becomes of its unified record: a primary that cannot be
   * reached now gets it from the next unified revocation pass.
   */
  private async recordUnified(
    mountUuid: string,
    entry: Parameters<UnifiedRevocationService['record']>[1],
    mount: MountInfo | undefined,
  ): Promise<void> {
    try {
      await this.unified.record(mountUuid, entry, mount);
    } catch (error) {
      this.logger.warn(
        `the unified CRL record of a revocation waits for the next pass: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
    }
  }

  /**
   * The lease of a generate_lease certificate or of a generated root ended: revoke it (gone or
   * expired is fine). A root's lease is the one way its own serial reaches its CRL (revoke refuses
   * the CA); it keeps signing afterwards, as Vault's single-issuer CA did.
   */
  async revokeForLease(mountUuid: string, serial: string): Promise<void> {
    try {
      await this.revokeSerial(mountUuid, serial, serial, true);
    } catch (error) {
      if ((error as { code?: string }).code !== 'invalid_request') throw error;
    }
  }

  /** Expired certificates leave the store; revoked ones stay on the CRL until they expire. */
  async tidy(req: RequestOf<typeof pki.tidy>): Promise<ResponseOf<typeof pki.tidy>> {
    const { tidy_cert_store, tidy_revocation_list, tidy_revoked_certs, safety_buffer } = req.body;
    const mountUuid = req.mount.uuid;
    const before = this.runtime.clock().getTime() - safety_buffer * 1000;
    const tidyRevoked = tidy_revoked_certs || tidy_revocation_list;
    let removedRevoked = false;
    for (const cert of await this.certs.expiredBefore(mountUuid, before)) {
      if (cert.revoked ? !tidyRevoked : !tidy_cert_store) continue;
      await this.log.append({ mountUuid, serial: cert.serial }, cert.version, [
        { type: 'CertificateTidied', data: {} },
      ]);
      removedRevoked ||= cert.revoked;
    }
    if (removedRevoked) await this.settings.rotate(mountUuid, this.runtime.clock().getTime());
    return {
      status: 202,
      warnings: [
        "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.",
      ],
    };
  }

  /** certs LIST: the serials of stored certificates. */
  async list(req: RequestOf<typeof pki.certList>): Promise<ResponseOf<typeof pki.certList>> {
    return { data: { keys: await this.certs.serials(req.mount.uuid) } };
  }

  /** cert/:serial of an issued certificate. */
  async read(mountUuid: string, input: string) {
    const serial = normalizeSerial(input);
    const cert = serial ? await this.certs.read(mountUuid, serial) : undefined;
    if (!cert) throw notFound();
    return cert;
  }
}
