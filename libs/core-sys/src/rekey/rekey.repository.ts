import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';

export interface NewRootKey {
  secretShares: number;
  secretThreshold: number;
  /** the keyring, AES-256-GCM under the new root key */
  keyring: Buffer;
  /** the new root key, barrier-encrypted */
  rootKey: Buffer;
}

/** The rekey's writes: the seal configuration's root key, and the key share backup. */
@Injectable()
export class RekeyRepository {
  constructor(private readonly db: CoreSysDb) {}

  /**
   * Installs a new root key (and the share configuration) for the keyring of `activeTerm`; false
   * when the keyring moved meanwhile (the caller serialises with rotation, so it never should).
   */
  async replaceRootKey(next: NewRootKey, activeTerm: number, now: Date): Promise<boolean> {
    const result = await this.db
      .of()
      .updateTable('seal_config')
      .set({
        secret_shares: next.secretShares,
        secret_threshold: next.secretThreshold,
        keyring: next.keyring,
        root_key: next.rootKey,
        updated_at: now,
      })
      .where('id', '=', 1)
      .where('active_term', '=', activeTerm)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async saveBackup(backup: Buffer, now: Date): Promise<void> {
    await this.db
      .of()
      .insertInto('rekey_backup')
      .values({ id: 1, backup, created_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ backup, created_at: now }))
      .execute();
  }

  async loadBackup(): Promise<Buffer | undefined> {
    const row = await this.db
      .of()
      .selectFrom('rekey_backup')
      .select('backup')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row ? Buffer.from(row.backup) : undefined;
  }

  async deleteBackup(): Promise<void> {
    await this.db.of().deleteFrom('rekey_backup').where('id', '=', 1).execute();
  }
}
