import { Inject, Injectable } from '@nestjs/common';
import { parseDuration } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { CertificateRepository } from '../certificates/certificate.repository';
import { SettingsService } from '../settings/settings.service';
import { buildCrl } from '../crypto/crl-builder';
import { crlPem } from '../crypto/pem';
import { CaStore } from '../issuer/ca-store';
import { PKI_RUNTIME } from '../pki.di';
import { UnifiedRevocationService } from '../unified/unified-revocation.service';
import { unifiedCrlEntries } from '../unified/unified-crl';

interface CachedCrl {
  key: string;
  der: Buffer;
  builtMs: number;
  expiryMs: number;
}

/**
 * Which CRL: `served` answers crl and crl/pem (the unified one with unified_crl and
 * unified_crl_on_existing_paths, as Vault), `unified` unified-crl (undefined with unified_crl off).
 */
export type CrlKind = 'served' | 'unified';

/**
 * The CRL of a mount. Revocations and crl/rotate bump the mount's CRL number; each replica builds
 * the CRL for the current number (and CA) on first read and keeps it until the number changes
 * or half its validity has passed, so a CRL is never served close to its nextUpdate.
 */
@Injectable()
export class CrlService {
  private readonly cache = new Map<string, CachedCrl>();

  constructor(
    private readonly cas: CaStore,
    private readonly certs: CertificateRepository,
    private readonly settings: SettingsService,
    private readonly unified: UnifiedRevocationService,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  /**
   * DER of the current CRL; undefined when the mount has no CA (or, for the unified CRL, when
   * unified_crl is off). The unified CRL lists the unified entries of the mount's CA and this
   * cluster's own revocations; its number is the local CRL number plus the entries recorded, so
   * it grows whenever either list does.
   */
  async der(mountUuid: string, kind: CrlKind = 'served'): Promise<Buffer | undefined> {
    const ca = await this.cas.find(mountUuid);
    if (!ca) return undefined;
    const config = await this.settings.crlConfig(mountUuid);
    const unified = config.unified_crl && (kind === 'unified' || config.unified_crl_on_existing_paths);
    if (kind === 'unified' && !unified) return undefined;
    const state = await this.settings.crlState(mountUuid);
    const entries = unified ? await this.unified.entries(mountUuid) : undefined;
    const number = state.number + (entries?.size ?? 0);
    const key = `${ca.version}:${number}:${unified ? 'unified' : 'local'}`;
    const cacheKey = `${mountUuid}/${unified ? 'unified' : 'local'}`;
    const now = this.runtime.clock().getTime();
    const cached = this.cache.get(cacheKey);
    if (cached?.key === key && now - cached.builtMs < cached.expiryMs / 2) return cached.der;
    const expiryMs = parseDuration(config.expiry) * 1000;
    const revoked = config.disable ? [] : await this.certs.revoked(mountUuid);
    const listed = entries && !config.disable ? unifiedCrlEntries(revoked, entries, ca.keyId ?? '') : revoked;
    const der = await buildCrl(
      {
        issuer: ca.cert.subjectName,
        authorityKeyId: ca.keyId,
        number: BigInt(number),
        thisUpdate: new Date(now),
        nextUpdate: new Date(now + expiryMs),
        entries: listed.map((r) => ({
          serialHex: r.serial.replace(/:/g, ''),
          revokedAt: new Date(r.revokedMs),
        })),
      },
      ca.signer,
    );
    this.cache.set(cacheKey, { key, der, builtMs: now, expiryMs });
    return der;
  }

  /** Drops every built CRL (a replicated CRL configuration does not change the cache key). */
  forget(): void {
    this.cache.clear();
  }

  async pem(mountUuid: string, kind: CrlKind = 'served'): Promise<string | undefined> {
    const der = await this.der(mountUuid, kind);
    return der ? crlPem(der) : undefined;
  }

  async rotate(mountUuid: string): Promise<void> {
    await this.settings.rotate(mountUuid, this.runtime.clock().getTime());
  }
}
