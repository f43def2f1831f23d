import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { rekeyBackupMigration } from './migrations/0130_rekey_backup';
import { RekeyHandlers } from './rekey.handlers';
import { RekeyRepository } from './rekey.repository';
import { RekeyService } from './rekey.service';

export const rekeyProviders: Provider[] = [RekeyRepository, RekeyService];
export const rekeyControllers: Type[] = [RekeyHandlers];
export const rekeyMigrations: Record<string, Migration> = {
  '0130_rekey_backup': rekeyBackupMigration,
};
export { RekeyService, newNonce } from './rekey.service';
