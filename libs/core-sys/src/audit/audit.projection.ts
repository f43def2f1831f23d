import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { AUDIT_EVENT_TYPES } from './audit.events';
import { AuditRepository } from './audit.repository';

type AuditEvents = typeof AUDIT_EVENT_TYPES;

/** The audit configuration's read model (devices without salts, headers), in the append's transaction. */
@Injectable()
export class AuditProjection implements Projection<AuditEvents> {
  constructor(private readonly repo: AuditRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<AuditEvents>[]): Promise<void> {
    for (const e of events) {
      switch (e.type) {
        case 'AuditDeviceEnabled': {
          const { salt: _salt, enabledAt: _at, ...device } = e.data;
          await this.repo.insertDevice(trx, device);
          break;
        }
        case 'AuditDeviceDisabled':
          await this.repo.deleteDevice(trx, e.data.path);
          break;
        case 'AuditHeaderSet':
          await this.repo.upsertHeader(trx, e.data.name, e.data.hmac);
          break;
        case 'AuditHeaderRemoved':
          await this.repo.deleteHeader(trx, e.data.name);
          break;
      }
    }
  }
}

/** Every audit configuration write: `append(undefined, expectedVersion, events)`. */
export abstract class AuditEventLog extends AggregateWriter<AuditEvents, void> {}
