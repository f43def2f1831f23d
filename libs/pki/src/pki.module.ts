import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { CertificateSigner } from './certificates/certificate-signer';
import { CertificateStore } from './certificates/certificate-store.service';
import { CERTIFICATE_LOG } from './certificates/certificate.events';
import { CertificateHandlers } from './certificates/certificate.handlers';
import { CertificateEventLog, CertificateProjection } from './certificates/certificate.projection';
import { CertificateRepository } from './certificates/certificate.repository';
import { IssueService } from './certificates/issue.service';
import { RevocationService } from './certificates/revocation.service';
import { SETTINGS_LOG, type SETTINGS_EVENT_TYPES } from './settings/settings.events';
import { SettingsService } from './settings/settings.service';
import { CrlHandlers } from './crl/crl.handlers';
import { CrlService } from './crl/crl.service';
import { CaReadService } from './issuer/ca-read.service';
import { CaSigningService } from './issuer/ca-signing.service';
import { CaStore } from './issuer/ca-store';
import { ISSUER_LOG, type ISSUER_EVENT_TYPES } from './issuer/issuer.events';
import { IssuerHandlers } from './issuer/issuer.handlers';
import { IssuerService } from './issuer/issuer.service';
import { PKI_MOUNT_LOG } from './mounts/pki-mount.events';
import { PkiBroadcastHandlers, PkiMountService } from './mounts/pki-mount.handlers';
import { PkiMountEventLog, PkiMountProjection } from './mounts/pki-mount.projection';
import { PKI_EVENT_STORE, PKI_OPTIONS, PKI_RUNTIME, type PkiModuleOptions } from './pki.di';
import { PKI_LOGS } from './pki.events';
import { ROLE_LOG, type ROLE_EVENT_TYPES } from './roles/role.events';
import { RoleHandlers, RoleHistoryHandlers } from './roles/role.handlers';
import { IssuerHistoryService } from './issuer/issuer-history.service';
import { RoleHistoryService } from './roles/role-history.service';
import { SettingsHistoryService } from './settings/settings-history.service';
import { PkiHistoryService } from './shared/pki-history.service';
import { PkiReadCaches } from './replication/pki-read-caches.service';
import { pkiReplicaProvider } from './replication/pki.replay';
import { RoleService } from './roles/role.service';
import {
  IssuerEventLog,
  RoleEventLog,
  SettingsEventLog,
  UnifiedRevocationEventLog,
} from './shared/document-logs';
import { DocumentProjection, type DocumentAppend } from './shared/document.projection';
import { DocumentCache } from './shared/document-cache';
import { DocumentRepository } from './shared/document.repository';
import { KeyFactory } from './shared/key-factory';
import { PkiDb } from './shared/pki.table';
import { SealedJson } from './shared/sealed-json';
import {
  UNIFIED_REVOCATION_LOG,
  type UNIFIED_REVOCATION_EVENT_TYPES,
} from './unified/unified-revocation.events';
import { UnifiedRevocationHandlers } from './unified/unified-revocation.handlers';
import { UnifiedRevocationPass } from './unified/unified-revocation.pass';
import { UnifiedRevocationService } from './unified/unified-revocation.service';

type IssuerEvents = typeof ISSUER_EVENT_TYPES;
type RoleEvents = typeof ROLE_EVENT_TYPES;
type SettingsEvents = typeof SETTINGS_EVENT_TYPES;
type UnifiedEvents = typeof UNIFIED_REVOCATION_EVENT_TYPES;

/**
 * The pki service: a certificate authority per mount. Replicas are stateless (each caches the
 * parsed CA and the built CRL per mount, keyed by their versions in the read model).
 */
@Module({})
export class PkiModule {
  static register(runtime: ServiceRuntime, options: PkiModuleOptions = {}): DynamicModule {
    return {
      module: PkiModule,
      providers: [
        { provide: PKI_RUNTIME, useValue: runtime },
        { provide: PKI_OPTIONS, useValue: options },
        { provide: PkiDb, useValue: new PkiDb(runtime) },
        {
          provide: PKI_EVENT_STORE,
          useValue: createServiceEventStore(runtime, PKI_LOGS, {
            replicaLog: { transport: runtime.transport },
          }),
        },
        SealedJson,
        DocumentCache,
        DocumentRepository,
        DocumentProjection,
        writerProvider<IssuerEvents, void, DocumentAppend>(
          IssuerEventLog,
          PKI_EVENT_STORE,
          ISSUER_LOG,
          DocumentProjection,
        ),
        writerProvider<RoleEvents, void, DocumentAppend>(
          RoleEventLog,
          PKI_EVENT_STORE,
          ROLE_LOG,
          DocumentProjection,
        ),
        writerProvider<SettingsEvents, void, DocumentAppend>(
          SettingsEventLog,
          PKI_EVENT_STORE,
          SETTINGS_LOG,
          DocumentProjection,
        ),
        writerProvider<UnifiedEvents, void, DocumentAppend>(
          UnifiedRevocationEventLog,
          PKI_EVENT_STORE,
          UNIFIED_REVOCATION_LOG,
          DocumentProjection,
        ),
        { provide: DrStandby, useValue: new DrStandby(runtime.transport) },
        UnifiedRevocationService,
        UnifiedRevocationPass,
        CertificateRepository,
        CertificateProjection,
        writerProvider(CertificateEventLog, PKI_EVENT_STORE, CERTIFICATE_LOG, CertificateProjection),
        KeyFactory,
        CaStore,
        SettingsService,
        CertificateSigner,
        CertificateStore,
        IssuerService,
        CaSigningService,
        RoleService,
        RoleHistoryService,
        SettingsHistoryService,
        IssuerHistoryService,
        PkiHistoryService,
        IssueService,
        RevocationService,
        CrlService,
        CaReadService,
        PkiMountProjection,
        writerProvider(PkiMountEventLog, PKI_EVENT_STORE, PKI_MOUNT_LOG, PkiMountProjection),
        PkiMountService,
        PkiReadCaches,
        pkiReplicaProvider(runtime),
      ],
      controllers: [
        IssuerHandlers,
        RoleHandlers,
        RoleHistoryHandlers,
        CertificateHandlers,
        CrlHandlers,
        PkiBroadcastHandlers,
        UnifiedRevocationHandlers,
      ],
    };
  }
}
