import { Injectable } from '@nestjs/common';
import { CloudRecordRepository } from '../../shared/cloud-record.repository';
import { CloudCredsDb } from '../../shared/cloud-record.table';
import { CLOUD_B_RECORDS_TABLE } from '../cloud-b.table';
import type { CloudBRecordKind } from './cloud-b-record.events';

export type { CloudRecordRow as CloudBRecordRow } from '../../shared/cloud-record.repository';

/** SQL of the cloud-b records (`recover_at`: since when outside work is unsettled). */
@Injectable()
export class CloudBRecordRepository extends CloudRecordRepository<CloudBRecordKind> {
  constructor(db: CloudCredsDb) {
    super(db, CLOUD_B_RECORDS_TABLE);
  }
}
