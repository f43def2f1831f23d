import type { Migration } from 'kysely';
import { cloudBReadModel0100 } from './0100_cloud_b_read_model';
import { cloudBRecoverAt0101 } from './0101_cloud_b_recover_at';

/** cloud-b's share of the "cloud_creds" schema's migrations (0100 onward; cloud-a has 0001–0099). */
export const cloudBMigrations: Record<string, Migration> = {
  '0100_cloud_b_read_model': cloudBReadModel0100,
  '0101_cloud_b_recover_at': cloudBRecoverAt0101,
};
