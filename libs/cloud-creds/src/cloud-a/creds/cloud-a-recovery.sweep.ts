import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { attemptRecovery, settleIssued, type IssuedRecord } from '../../shared/lease-presence';
import { ownRows } from '../../shared/own-records';
import { cloudAStream, type CloudARecordKind } from '../records/cloud-a-record.events';
import { CloudARecordRepository } from '../records/cloud-a-record.repository';
import { CloudARecordStore } from '../records/cloud-a-record.store';
import { CloudACredsService } from './cloud-a-creds.service';

const SWEEP_INTERVAL_MS = 2_000;
const BATCH = 50;

/**
 * The recovery pass of every replica (at start-up, then every 2 s): a credential whose creation
 * did not reach "issued" by its deadline (its replica was killed, or its clean-up failed) is undone
 * in Azure and forgotten; so is an issued one whose lease core-sys still does not hold once the
 * registration cannot be coming any more (the gateway gave up, or died, before registering it).
 * The takeover is an append at the version read, so one replica wins and a live creator stops.
 */
@Injectable()
export class CloudARecoverySweep extends SweepJob {
  constructor(
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: CloudARecordRepository,
    private readonly store: CloudARecordStore,
    private readonly creds: CloudACredsService,
    @Inject(CLOUD_CREDS_EVENT_STORE) private readonly events: EventStore,
    private readonly standby: DrStandby,
  ) {
    super('cloud-a.recovery', 'cloud-a recovery pass', SWEEP_INTERVAL_MS);
  }

  override async sweep(): Promise<number> {
    if (await this.standby.standing()) return 0;
    // a secondary's replicated records are the primary's to recover (see ownRows)
    const rows = await ownRows(this.events, await this.repo.recoverable(this.runtime.clock(), BATCH), (r) =>
      cloudAStream({ mountUuid: r.mount_uuid, kind: r.kind as CloudARecordKind, name: r.name }),
    );
    const issued = new Map<string, IssuedRecord[]>();
    let removed = 0;
    for (const row of rows) {
      if (row.kind !== 'cred') continue;
      const cred = this.store.open(row.mount_uuid, 'cred', row);
      if (cred.state.phase === 'issued' && cred.state.issued_at) {
        const record = { name: cred.name, version: cred.version, issuedAt: new Date(cred.state.issued_at) };
        issued.set(row.mount_uuid, [...(issued.get(row.mount_uuid) ?? []), record]);
        continue;
      }
      const undone = await attemptRecovery(this.logger, `cloud-a credential ${row.name}`, () =>
        this.creds.remove(row.mount_uuid, row.name, true),
      );
      if (undone) removed++;
    }
    for (const [mountUuid, records] of issued)
      removed += await settleIssued(this.runtime, this.logger, {
        what: 'cloud-a credential',
        mountUuid,
        field: 'cred_id',
        records,
        confirm: (r) =>
          this.store.append(mountUuid, 'cred', r.name, r.version, [
            { type: 'CloudACredentialLeased', data: { at: this.runtime.clock().toISOString() } },
          ]),
        remove: (r) => this.creds.remove(mountUuid, r.name),
      });
    return removed;
  }
}
