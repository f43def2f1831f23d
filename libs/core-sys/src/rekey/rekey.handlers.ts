import { Controller } from '@nestjs/common';
import { rekeyContracts, type ResponseOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { RekeyService } from './rekey.service';

/**
 * The rekey backup, served by every replica (it is stored). The attempt's own subjects are
 * leader-only: RekeyService serves them through the seal coordinator.
 */
@Controller()
export class RekeyHandlers {
  constructor(private readonly rekey: RekeyService) {}

  @Handles(rekeyContracts.rekeyBackupRead)
  backupRead(): Promise<ResponseOf<typeof rekeyContracts.rekeyBackupRead>> {
    return this.rekey.backupRead();
  }

  @Handles(rekeyContracts.rekeyBackupDelete)
  backupDelete(): Promise<ResponseOf<typeof rekeyContracts.rekeyBackupDelete>> {
    return this.rekey.backupDelete();
  }
}
