import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { SshTrx } from '../shared/ssh.table';
import type { OTP_EVENT_TYPES, OtpKey } from './otp.events';
import { OtpRepository } from './otp.repository';

type OtpEvents = typeof OTP_EVENT_TYPES;

/** An issued OTP is a row; consuming or revoking it removes the row, in the append's transaction. */
@Injectable()
export class OtpProjection implements Projection<OtpEvents, void, OtpKey> {
  constructor(private readonly repo: OtpRepository) {}

  async apply(trx: SshTrx, events: AppendedOf<OtpEvents>[], key: OtpKey): Promise<void> {
    for (const event of events) {
      if (event.type === 'SshOtpIssued') {
        await this.repo.insert(trx, {
          mount_uuid: key.mountUuid,
          hash: key.hash,
          username: event.data.username,
          ip: event.data.ip,
          role_name: event.data.roleName,
          stream_version: versionAfter(events),
        });
      } else {
        await this.repo.delete(trx, key.mountUuid, key.hash);
      }
    }
  }
}

/** OTP appends: `append({ mountUuid, hash }, expectedVersion, events)`. */
export abstract class OtpEventLog extends AggregateWriter<OtpEvents, void, OtpKey> {}
