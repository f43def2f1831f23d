import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { LookupService } from './access/lookup.service';
import { ZeroAddressService } from './access/zero-address.service';
import { CaService } from './ca/ca.service';
import { CredsService } from './creds/creds.service';
import { SshLeaseHandlers } from './creds/lease.handlers';
import { KeyService } from './keys/key.service';
import { MountPurgeHandlers } from './records/mount-purge.handlers';
import { OTP_LOG } from './otp/otp.events';
import { OtpEventLog, OtpProjection } from './otp/otp.projection';
import { OtpRepository } from './otp/otp.repository';
import { OtpService } from './otp/otp.service';
import { RECORD_LOG } from './records/record.events';
import { RecordEventLog, RecordProjection } from './records/record.projection';
import { RecordRepository } from './records/record.repository';
import { RecordStore } from './records/record.store';
import { RoleService } from './roles/role.service';
import { SshRoleHistoryService } from './roles/ssh-role-history.service';
import { SshCaHistoryService } from './ca/ssh-ca-history.service';
import { SshHistoryService } from './records/ssh-history.service';
import { sshReplicaProvider } from './replication/ssh.replay';
import { SignService } from './sign/sign.service';
import { SSH_EVENT_STORE, SSH_RUNTIME } from './ssh.di';
import { SSH_LOGS } from './ssh.events';
import { SshCaHandlers, SshCredsHandlers, SshHistoryHandlers, SshSettingsHandlers } from './ssh.handlers';
import { IdentityTemplates } from './shared/identity';
import { SealedJson } from './shared/sealed-json';
import { SshDb } from './shared/ssh.table';

/**
 * The ssh service: CA-signed certificates, one-time passwords and dynamic keys. Replicas are
 * stateless (a parsed CA key is cached per mount, keyed by the record's version).
 */
@Module({})
export class SshModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: SshModule,
      providers: [
        { provide: SSH_RUNTIME, useValue: runtime },
        { provide: SshDb, useValue: new SshDb(runtime) },
        {
          provide: SSH_EVENT_STORE,
          useValue: createServiceEventStore(runtime, SSH_LOGS, {
            replicaLog: { transport: runtime.transport },
          }),
        },
        { provide: SealedJson, useValue: new SealedJson(runtime.cipher) },
        RecordRepository,
        RecordProjection,
        writerProvider(RecordEventLog, SSH_EVENT_STORE, RECORD_LOG, RecordProjection),
        RecordStore,
        OtpRepository,
        OtpProjection,
        writerProvider(OtpEventLog, SSH_EVENT_STORE, OTP_LOG, OtpProjection),
        OtpService,
        ZeroAddressService,
        RoleService,
        SshRoleHistoryService,
        SshCaHistoryService,
        SshHistoryService,
        KeyService,
        CaService,
        IdentityTemplates,
        SignService,
        CredsService,
        LookupService,
        sshReplicaProvider(runtime),
      ],
      controllers: [
        SshSettingsHandlers,
        SshCaHandlers,
        SshCredsHandlers,
        SshLeaseHandlers,
        MountPurgeHandlers,
        SshHistoryHandlers,
      ],
    };
  }
}
