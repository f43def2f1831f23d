import { Injectable } from '@nestjs/common';
import { CloudRecordRepository } from '../../shared/cloud-record.repository';
import { CloudCredsDb } from '../../shared/cloud-record.table';
import { CLOUD_A_RECORDS_TABLE } from '../cloud-a.table';
import type { CloudARecordKind } from './cloud-a-record.events';

export type { CloudRecordRow as CloudARecordRow } from '../../shared/cloud-record.repository';

/** SQL of the cloud-a records (`recover_at`: when a credential is the recovery pass's). */
@Injectable()
export class CloudARecordRepository extends CloudRecordRepository<CloudARecordKind> {
  constructor(db: CloudCredsDb) {
    super(db, CLOUD_A_RECORDS_TABLE);
  }
}
