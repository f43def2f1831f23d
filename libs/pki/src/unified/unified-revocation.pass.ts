import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DrStandby, IntervalLoop } from '@coffer/scheduling';
import { CertificateRepository } from '../certificates/certificate.repository';
import { RevocationService } from '../certificates/revocation.service';
import { CaStore } from '../issuer/ca-store';
import { PKI_OPTIONS, type PkiModuleOptions } from '../pki.di';
import { SettingsService } from '../settings/settings.service';
import { DocumentRepository } from '../shared/document.repository';
import { UnifiedRevocationService } from './unified-revocation.service';

/** a safety net: records a primary could not take, requests whose replay was not noticed */
export const DEFAULT_UNIFIED_REVOCATION_INTERVAL_MS = 30_000;

/**
 * What Vault's unified transfer and revocation queue do, per mount whose config/crl asks for
 * it: record this cluster's revocations the unified entries lack (a forward that failed, or
 * unified_crl enabled after them), and revoke the certificates of cross-cluster requests that
 * this cluster issued (which records their unified entry). Kicked when a revocation record or
 * request arrives (a forwarded write on the primary, a replayed batch on a secondary), and on a
 * timer; never on a DR secondary (the primary's state, replayed).
 */
@Injectable()
export class UnifiedRevocationPass implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PkiUnifiedRevocation');
  readonly #loop: IntervalLoop;
  /** a kick not yet served by a pass begun after it */
  #wanted = false;
  #draining = false;
  /** passes begun so far */
  #passes = 0;

  constructor(
    private readonly docs: DocumentRepository,
    private readonly settings: SettingsService,
    private readonly certs: CertificateRepository,
    private readonly cas: CaStore,
    private readonly unified: UnifiedRevocationService,
    private readonly revocation: RevocationService,
    private readonly standby: DrStandby,
    @Inject(PKI_OPTIONS) options: PkiModuleOptions,
  ) {
    this.#loop = new IntervalLoop({
      name: 'pki unified revocation',
      intervalMs: options.unifiedRevocationIntervalMs ?? DEFAULT_UNIFIED_REVOCATION_INTERVAL_MS,
      run: () => this.pass(),
      onError: (error) =>
        this.logger.warn(
          `unified revocation pass failed: ${error instanceof Error ? error.message : 'unknown error'}`,
        ),
    });
  }

  onApplicationBootstrap(): void {
    this.#loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#loop.stop();
  }

  /** Runs a pass that begins after this call (soon); never throws. */
  kick(): void {
    this.#wanted = true;
    if (!this.#draining) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#wanted) {
        this.#wanted = false;
        const before = this.#passes;
        await this.#loop.tick();
        // joined a pass begun before the kick: it may have missed what the kick is about
        if (this.#passes === before) this.#wanted = true;
      }
    } finally {
      this.#draining = false;
    }
  }

  /** One pass over every mount; answers how many revocations it recorded or made. */
  async pass(): Promise<number> {
    this.#passes += 1;
    if (await this.standby.standing()) return 0;
    let done = 0;
    for (const mountUuid of await this.docs.mountsWith('crl-config')) done += await this.passMount(mountUuid);
    return done;
  }

  /** A request revoke refuses (the CA's own serial) stays unserved; the others go on. */
  private async revokeRequested(mountUuid: string, serial: string): Promise<boolean> {
    try {
      return (await this.revocation.revokeSerial(mountUuid, serial)).revokedAtMs !== null;
    } catch (error) {
      if ((error as { code?: string }).code === 'invalid_request') return false;
      throw error;
    }
  }

  private async passMount(mountUuid: string): Promise<number> {
    const config = await this.settings.crlConfig(mountUuid);
    if (!config.unified_crl && !config.cross_cluster_revocation) return 0;
    const entries = await this.unified.entries(mountUuid);
    let done = 0;
    if (config.cross_cluster_revocation) {
      for (const serial of (await this.unified.requests(mountUuid)).keys()) {
        if (entries.has(serial)) continue;
        const cert = await this.certs.read(mountUuid, serial);
        if (!cert || cert.revokedMs !== null) continue;
        // the issuing cluster: revoking records the unified entry (with unified_crl)
        if (await this.revokeRequested(mountUuid, serial)) done += 1;
      }
    }
    if (config.unified_crl) {
      const issuerKeyId = (await this.cas.find(mountUuid))?.keyId ?? '';
      for (const r of await this.certs.revoked(mountUuid)) {
        if (entries.has(r.serial)) continue;
        await this.unified.record(mountUuid, { serial: r.serial, revokedAtMs: r.revokedMs, issuerKeyId });
        done += 1;
      }
    }
    return done;
  }
}
