import { Inject, Injectable } from '@nestjs/common';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { SweepJob } from '@coffer/scheduling';
import { DIRECTORY_RUNTIME } from '../directory.di';
import type { RecordKind } from '../records/record.events';
import { RecordRepository, type RecordRow } from '../records/record.repository';
import { RecordStore } from '../records/record.store';
import { LibraryService } from '../library/library.service';
import { RoleService } from '../roles/role.service';
import { PasswordRotation } from './password-rotation.service';

const SWEEP_INTERVAL_MS = 2_000;
const BATCH = 100;
/** A pending change is left to whoever started it this long before the sweep finishes it. */
const PENDING_GRACE_MS = 12_000;

/**
 * The rotation loop of every replica: rotates roles whose ttl has passed, gives enrolled library
 * accounts their first password, and is the recovery pass for password changes left pending (a
 * crash or kill -9 between the directory write and its confirmation). Replicas never rotate twice:
 * a rotation starts with an append at the version read, which only one replica wins. On a
 * secondary the records replayed from the primary are left to the primary.
 */
@Injectable()
export class RotationSweep extends SweepJob {
  constructor(
    @Inject(DIRECTORY_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: RecordRepository,
    private readonly store: RecordStore,
    private readonly rotation: PasswordRotation,
    private readonly roles: RoleService,
    private readonly library: LibraryService,
  ) {
    super('directory.rotation', 'directory rotation sweep', SWEEP_INTERVAL_MS);
  }

  override async sweep(): Promise<number> {
    const now = this.runtime.clock();
    const rows = await this.repo.needingAttention(now, new Date(now.getTime() - PENDING_GRACE_MS), BATCH);
    let done = 0;
    for (const row of rows) {
      try {
        if (await this.attend(row)) done++;
      } catch (error) {
        if (isConcurrencyError(error)) continue;
        this.logger.warn(
          `directory ${row.kind} ${row.name}: ${error instanceof Error ? error.message : 'unknown error'}`,
        );
      }
    }
    return done;
  }

  private async attend(row: RecordRow): Promise<boolean> {
    const mountUuid = row.mount_uuid;
    const config = await this.store.get(mountUuid, 'config', 'config');
    if (!config) return false;
    const kind = row.kind as RecordKind;
    // a record replayed from a primary is the primary's to rotate and recover (secondaries)
    if (!(await this.store.writableHere(mountUuid, kind, { name: row.name, version: row.stream_version })))
      return false;
    if (kind === 'config') {
      await this.rotation.finish(mountUuid, 'config', config, config, config.state.connection.binddn);
      return true;
    }
    if (kind === 'role') {
      const role = this.store.open(mountUuid, 'role', row);
      if (role.state.password.pending) {
        await this.rotation.finish(mountUuid, 'role', role, config, role.state.service_account_name);
        return true;
      }
      await this.roles.rotateIfDue(mountUuid, row.name);
      return true;
    }
    if (kind === 'account') {
      const account = this.store.open(mountUuid, 'account', row);
      if (account.state.password.pending)
        await this.rotation.finish(mountUuid, 'account', account, config, row.name);
      else if (account.state.password.current === null)
        await this.rotation.rotate(mountUuid, 'account', account, config, row.name);
      else return this.library.settleCheckOut(mountUuid, account);
      return true;
    }
    return false;
  }
}
