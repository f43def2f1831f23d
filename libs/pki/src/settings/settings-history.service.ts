import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type JsonObject,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { PKI_EVENT_STORE, PKI_RUNTIME } from '../pki.di';
import { documentStream } from '../shared/document.projection';
import type { DocumentKind } from '../shared/document.repository';
import { NO_URLS } from './settings.service';
import { DEFAULT_CRL_CONFIG, SETTINGS_LOG } from './settings.events';

/** The settings paths with a history, and the document (one stream per mount) each reads. */
const SETTINGS: Readonly<Record<string, { kind: DocumentKind; fallback: JsonObject }>> = {
  'config/urls': { kind: 'urls', fallback: { ...NO_URLS } },
  'config/crl': { kind: 'crl-config', fallback: { ...DEFAULT_CRL_CONFIG } },
};

/**
 * `pki.history.state` of `config/urls` and `config/crl`: each is one stream per mount
 * (`pki-urls/<mount uuid>/`, `pki-crl-config/<mount uuid>/`) whose every event holds the whole
 * setting, so the last event recorded at or before the instant is the read then; none yet: the
 * defaults, as the live read answers them.
 */
@Injectable()
export class SettingsHistoryService {
  constructor(
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(PKI_EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** Whether `path` (inside the mount) is a setting this service answers. */
  handles(path: string): boolean {
    return Object.hasOwn(SETTINGS, path.replace(/^\/+|\/+$/g, ''));
  }

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const setting = SETTINGS[path];
    if (req.mount_type !== 'pki' || setting === undefined) {
      throw invalidRequest(`no history of "${req.path}": config/urls and config/crl of a pki mount have one`);
    }
    const { state, wal } = await this.store.foldStreamAt<JsonObject>(
      documentStream({ mountUuid: req.mount_uuid, kind: setting.kind, name: '' }),
      at,
      setting.fallback,
      (prior, stored) => {
        const event = SETTINGS_LOG.decode(stored);
        return event.type === 'CrlRotated' ? prior : { ...event.data };
      },
    );
    return { found: true, wal, state, warnings: [] };
  }
}
