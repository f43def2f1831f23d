import { Inject, Injectable } from '@nestjs/common';
import { parseDuration } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { CertificateRepository } from '../certificates/certificate.repository';
import { SettingsService } from '../settings/settings.service';
import { buildCrl } from '../crypto/crl-builder';
import { crlPem } from '../crypto/pem';
import { CaStore } from '../issuer/ca-store';
import { PKI_RUNTIME } from '../pki.di';

interface CachedCrl {
  key: string;
  der: Buffer;
  builtMs: number;
  expiryMs: number;
}

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
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  /** DER of the current CRL; undefined when the mount has no CA. */
  async der(mountUuid: string): Promise<Buffer | undefined> {
    const ca = await this.cas.find(mountUuid);
    if (!ca) return undefined;
    const state = await this.settings.crlState(mountUuid);
    const key = `${ca.version}:${state.number}`;
    const now = this.runtime.clock().getTime();
    const cached = this.cache.get(mountUuid);
    if (cached?.key === key && now - cached.builtMs < cached.expiryMs / 2) return cached.der;
    const config = await this.settings.crlConfig(mountUuid);
    const expiryMs = parseDuration(config.expiry) * 1000;
    const revoked = config.disable ? [] : await this.certs.revoked(mountUuid);
    const der = await buildCrl(
      {
        issuer: ca.cert.subjectName,
        authorityKeyId: ca.keyId,
        number: BigInt(state.number),
        thisUpdate: new Date(now),
        nextUpdate: new Date(now + expiryMs),
        entries: revoked.map((r) => ({
          serialHex: r.serial.replace(/:/g, ''),
          revokedAt: new Date(r.revokedMs),
        })),
      },
      ca.signer,
    );
    this.cache.set(mountUuid, { key, der, builtMs: now, expiryMs });
    return der;
  }

  /** Drops every built CRL (a replicated CRL configuration does not change the cache key). */
  forget(): void {
    this.cache.clear();
  }

  async pem(mountUuid: string): Promise<string | undefined> {
    const der = await this.der(mountUuid);
    return der ? crlPem(der) : undefined;
  }

  async rotate(mountUuid: string): Promise<void> {
    await this.settings.rotate(mountUuid, this.runtime.clock().getTime());
  }
}
