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
import { ISSUER_LOG } from './issuer.events';

/** The CA reads with a history: each answers from the certificate and the chain above it. */
const CA_READS: Readonly<Record<string, (cert: string, chain: string[]) => JsonObject>> = {
  'cert/ca': (cert, chain) => ({ certificate: cert, revocation_time: 0, ca_chain: [cert, ...chain] }),
  'cert/ca_chain': (cert, chain) => ({
    certificate: [cert, ...chain].join('\n'),
    revocation_time: 0,
    ca_chain: [cert, ...chain],
  }),
  // the raw reads (PEM bodies live) answer their body as `certificate`
  'ca/pem': (cert) => ({ certificate: cert }),
  ca_chain: (cert, chain) => ({ certificate: [cert, ...chain].join('\n') }),
};

/**
 * `pki.history.state` of the mount's CA certificate: `cert/ca`, `cert/ca_chain`, `ca/pem` and
 * `ca_chain` as they answered at an instant. The CA is one stream per mount
 * (`pki-issuer/<mount uuid>/`): the last CaInstalled recorded at or before the instant is the CA
 * then, a later CaDeleted removes it (a key generated for an intermediate changes nothing until
 * its certificate is installed). Public material only: the CA's private key is in those events
 * and never leaves this function.
 */
@Injectable()
export class IssuerHistoryService {
  constructor(
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(PKI_EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** Whether `path` (inside the mount) is a CA read this service answers. */
  handles(path: string): boolean {
    return Object.hasOwn(CA_READS, path.replace(/^\/+|\/+$/g, ''));
  }

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const view = CA_READS[path];
    if (req.mount_type !== 'pki' || view === undefined) {
      throw invalidRequest(
        `no history of "${req.path}": cert/ca, cert/ca_chain, ca/pem and ca_chain of a pki mount have one`,
      );
    }
    const { state: ca, wal } = await this.store.foldStreamAt<{ cert: string; chain: string[] } | null>(
      documentStream({ mountUuid: req.mount_uuid, kind: 'issuer', name: '' }),
      at,
      null,
      (prior, stored) => {
        const event = ISSUER_LOG.decode(stored);
        if (event.type === 'CaInstalled') return { cert: event.data.certPem, chain: event.data.chainPems };
        return event.type === 'CaDeleted' ? null : prior;
      },
    );
    // no CA then: the live reads answered 404 (cert/...) or 204 with no body (the raw ones)
    if (ca === null) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: view(ca.cert, ca.chain), warnings: [] };
  }
}
