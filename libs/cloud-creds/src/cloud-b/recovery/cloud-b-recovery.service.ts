import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { CLOUD_B_REQUEST_TIMEOUT_S } from '../aws/cloud-b-clients';
import { RootRotation } from '../config/cloud-b-root-rotation.service';
import { CloudBUserRemoval } from '../creds/cloud-b-user-removal.service';
import { CloudBRecordRepository, type CloudBRecordRow } from '../records/cloud-b-record.repository';
import { CloudBRecordStore } from '../records/cloud-b-record.store';
import { cloudBStream, type CloudBRecordKind } from '../records/cloud-b-record.events';
import { ownRows } from '../../shared/own-records';
import {
  attemptRecovery,
  LEASE_REGISTRATION_GRACE_MS,
  settleIssued,
  type IssuedRecord,
} from '../../shared/lease-presence';

const SWEEP_INTERVAL_MS = 2_000;
const BATCH = 50;
/** The least grace: nothing pending younger than this is looked at. */
const MIN_GRACE_MS = 5_000;

/**
 * The recovery pass of every replica (at start-up, then every 2 s): outside work left unsettled
 * (an IAM user announced but never confirmed, one whose removal failed, a root rotation cut short
 * by a kill -9 or a time-out) is finished once it is older than the mount's grace, the time the
 * request that started it may still be running; an issued user whose lease core-sys does not
 * hold once the registration cannot be coming (the gateway gave up or died first) is removed.
 * Replicas racing on one record: the first append wins and removal is idempotent.
 */
@Injectable()
export class CloudBRecovery extends SweepJob {
  constructor(
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: CloudBRecordRepository,
    private readonly store: CloudBRecordStore,
    private readonly removal: CloudBUserRemoval,
    private readonly rotation: RootRotation,
    @Inject(CLOUD_CREDS_EVENT_STORE) private readonly events: EventStore,
    private readonly standby: DrStandby,
  ) {
    super('cloud-b.recovery', 'cloud-b recovery pass', SWEEP_INTERVAL_MS);
  }

  override async sweep(): Promise<number> {
    if (await this.standby.standing()) return 0;
    const now = this.runtime.clock().getTime();
    // a secondary's replicated records are the primary's to recover (see ownRows)
    const rows = await ownRows(
      this.events,
      await this.repo.recoverable(new Date(now - MIN_GRACE_MS), BATCH),
      (r) => cloudBStream({ mountUuid: r.mount_uuid, kind: r.kind as CloudBRecordKind, name: r.name }),
    );
    const issued = new Map<string, IssuedRecord[]>();
    let done = 0;
    for (const row of rows) {
      if (row.kind === 'user') {
        const user = this.store.open(row.mount_uuid, 'user', row);
        if (user.state.status === 'issued') {
          const issuedAt = new Date(user.state.at);
          if (now - issuedAt.getTime() >= LEASE_REGISTRATION_GRACE_MS) {
            const record = { name: user.name, version: user.version, issuedAt };
            issued.set(row.mount_uuid, [...(issued.get(row.mount_uuid) ?? []), record]);
          }
          continue;
        }
      }
      if (await attemptRecovery(this.logger, `cloud-b ${row.kind} ${row.name}`, () => this.attend(row, now)))
        done++;
    }
    for (const [mountUuid, records] of issued)
      done += await settleIssued(this.runtime, this.logger, {
        what: 'cloud-b user',
        mountUuid,
        field: 'username',
        records,
        confirm: (r) =>
          this.store.append(mountUuid, 'user', r.name, r.version, [
            { type: 'CloudBUserLeased', data: { at: this.runtime.clock().toISOString() } },
          ]),
        remove: (r) => this.removal.remove(mountUuid, r.name),
      });
    return done;
  }

  private async attend(row: CloudBRecordRow, now: number): Promise<boolean> {
    const root = await this.store.get(row.mount_uuid, 'root', 'root');
    const grace = graceMs(root?.state.request_timeout ?? CLOUD_B_REQUEST_TIMEOUT_S);
    if (!row.recover_at || now - row.recover_at.getTime() < grace) return false;
    if (row.kind === 'user') {
      await this.removal.remove(row.mount_uuid, row.name);
      return true;
    }
    if (row.kind === 'root' && root) {
      await this.rotation.finish(row.mount_uuid, root);
      return true;
    }
    return false;
  }
}

/** How long outside work belongs to the request that started it: its calls, and its own cleanup. */
export function graceMs(requestTimeoutS: number): number {
  return (2 * requestTimeoutS + 5) * 1000;
}
