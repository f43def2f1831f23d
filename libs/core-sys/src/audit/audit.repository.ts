import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { AuditDevice } from './audit.decider';
import type { AuditDeviceRow, AuditHeaderRow } from './audit.table';

/** All SQL of the audit read model. */
@Injectable()
export class AuditRepository {
  constructor(private readonly db: CoreSysDb) {}

  devices(): Promise<AuditDeviceRow[]> {
    return this.db
      .of()
      .selectFrom('audit_devices')
      .select(['path', 'type', 'description', 'options', 'local'])
      .orderBy('path')
      .execute();
  }

  headers(): Promise<AuditHeaderRow[]> {
    return this.db
      .of()
      .selectFrom('audit_request_headers')
      .select(['name', 'hmac'])
      .orderBy('name')
      .execute();
  }

  async insertDevice(trx: CoreSysTrx, device: Omit<AuditDevice, 'salt'>): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('audit_devices')
      .values({
        path: device.path,
        type: device.type,
        description: device.description,
        options: JSON.stringify(device.options),
        local: device.local,
      })
      .execute();
  }

  async deleteDevice(trx: CoreSysTrx, path: string): Promise<void> {
    await this.db.of(trx).deleteFrom('audit_devices').where('path', '=', path).execute();
  }

  async upsertHeader(trx: CoreSysTrx, name: string, hmac: boolean): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('audit_request_headers')
      .values({ name, hmac })
      .onConflict((oc) => oc.column('name').doUpdateSet({ hmac }))
      .execute();
  }

  async deleteHeader(trx: CoreSysTrx, name: string): Promise<void> {
    await this.db.of(trx).deleteFrom('audit_request_headers').where('name', '=', name).execute();
  }
}
