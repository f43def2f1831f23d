import { Injectable } from '@nestjs/common';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki } from '@coffer/contracts/pki';
import { retryOnConflict } from '@coffer/event-store';
import type { CaUrls } from '../crypto/certificate-builder';
import { SettingsEventLog } from '../shared/document-logs';
import { DocumentRepository, type DocumentKind } from '../shared/document.repository';
import { decideCrlConfig } from './crl-config.decider';
import { DEFAULT_CRL_CONFIG, type CrlConfig, type CrlState } from './settings.events';

export const NO_URLS: CaUrls = { issuing_certificates: [], crl_distribution_points: [], ocsp_servers: [] };

/** config/crl, config/urls and the CRL number of a mount. */
@Injectable()
export class SettingsService {
  constructor(
    private readonly docs: DocumentRepository,
    private readonly log: SettingsEventLog,
  ) {}

  async urls(mountUuid: string): Promise<CaUrls> {
    return (await this.docs.load<CaUrls>(mountUuid, 'urls'))?.value ?? NO_URLS;
  }

  async crlConfig(mountUuid: string): Promise<CrlConfig> {
    // written before the unified-revocation fields existed: their defaults
    return { ...DEFAULT_CRL_CONFIG, ...(await this.docs.load<CrlConfig>(mountUuid, 'crl-config'))?.value };
  }

  async crlState(mountUuid: string): Promise<CrlState> {
    return (await this.docs.load<CrlState>(mountUuid, 'crl-state'))?.value ?? { number: 0, atMs: 0 };
  }

  async readUrls(req: RequestOf<typeof pki.urlsRead>): Promise<ResponseOf<typeof pki.urlsRead>> {
    return { data: await this.urls(req.mount.uuid) };
  }

  async writeUrls(req: RequestOf<typeof pki.urlsWrite>): Promise<ResponseOf<typeof pki.urlsWrite>> {
    const given = req.body;
    for (const [field, urls] of Object.entries(given)) {
      const bad = (urls ?? []).find((u) => !URL.canParse(u));
      if (bad !== undefined) throw invalidRequest(`invalid URL found in ${field}: ${bad}`);
    }
    await this.update<CaUrls>(req.mount.uuid, 'urls', NO_URLS, (current) => {
      const next: CaUrls = {
        issuing_certificates: given.issuing_certificates ?? current.issuing_certificates,
        crl_distribution_points: given.crl_distribution_points ?? current.crl_distribution_points,
        ocsp_servers: given.ocsp_servers ?? current.ocsp_servers,
      };
      return { next, events: [{ type: 'UrlsWritten', data: next }] };
    });
    return {};
  }

  async readCrlConfig(
    req: RequestOf<typeof pki.crlConfigRead>,
  ): Promise<ResponseOf<typeof pki.crlConfigRead>> {
    return { data: await this.crlConfig(req.mount.uuid) };
  }

  async writeCrlConfig(
    req: RequestOf<typeof pki.crlConfigWrite>,
  ): Promise<ResponseOf<typeof pki.crlConfigWrite>> {
    await this.update<CrlConfig>(req.mount.uuid, 'crl-config', DEFAULT_CRL_CONFIG, (current) => {
      const next = decideCrlConfig({ ...DEFAULT_CRL_CONFIG, ...current }, req.body);
      return { next, events: [{ type: 'CrlConfigWritten', data: next }] };
    });
    await this.rotate(req.mount.uuid, Date.now());
    return {};
  }

  /** A new CRL number: every replica rebuilds its CRL on its next read. */
  async rotate(mountUuid: string, nowMs: number): Promise<CrlState> {
    return this.update<CrlState>(mountUuid, 'crl-state', { number: 0, atMs: 0 }, (current) => {
      const next = { number: current.number + 1, atMs: nowMs };
      return { next, events: [{ type: 'CrlRotated', data: next }] };
    });
  }

  private update<T>(
    mountUuid: string,
    kind: DocumentKind,
    fallback: T,
    decide: (current: T) => { next: T; events: Parameters<SettingsEventLog['append']>[2] },
  ): Promise<T> {
    return retryOnConflict(async () => {
      const doc = await this.docs.load<T>(mountUuid, kind);
      const { next, events } = decide(doc?.value ?? fallback);
      await this.log.append({ mountUuid, kind, name: '', next }, doc?.version ?? 'any', events);
      return next;
    });
  }
}
