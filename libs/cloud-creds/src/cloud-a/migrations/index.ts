import type { Migration } from 'kysely';
import { cloudAReadModel0001 } from './0001_cloud_a_read_model';
import { cloudARecoverAt0002 } from './0002_cloud_a_recover_at';

/** cloud-a's migrations in the cloud_creds schema (0001–0099; cloud-b uses 0100 and up). */
export const cloudAMigrations: Record<string, Migration> = {
  '0001_cloud_a_read_model': cloudAReadModel0001,
  '0002_cloud_a_recover_at': cloudARecoverAt0002,
};
