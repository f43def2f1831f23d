import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { PkiTrx } from '../shared/pki.table';
import type { CERTIFICATE_EVENT_TYPES, CertificateKey } from './certificate.events';
import { CertificateRepository } from './certificate.repository';

type CertificateEvents = typeof CERTIFICATE_EVENT_TYPES;

/** The certificates table, in the append's transaction. */
@Injectable()
export class CertificateProjection implements Projection<CertificateEvents, void, CertificateKey> {
  constructor(private readonly repo: CertificateRepository) {}

  async apply(trx: PkiTrx, events: AppendedOf<CertificateEvents>[], k: CertificateKey): Promise<void> {
    for (const e of events) {
      if (e.type === 'CertificateStored')
        await this.repo.insert(
          trx,
          k.mountUuid,
          k.serial,
          e.data.certPem,
          e.data.notAfterMs,
          e.streamVersion,
        );
      else if (e.type === 'CertificateRevoked')
        await this.repo.markRevoked(trx, k.mountUuid, k.serial, e.data.revokedAtMs, e.streamVersion);
      else await this.repo.remove(trx, k.mountUuid, k.serial);
    }
  }
}

/** Writes of issued certificates: `append({ mountUuid, serial }, expectedVersion, events)`. */
export abstract class CertificateEventLog extends AggregateWriter<CertificateEvents, void, CertificateKey> {}
