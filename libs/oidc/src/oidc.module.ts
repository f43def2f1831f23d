import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { OidcConfigProjection, OidcConfigEventLog } from './config/oidc-config.projection';
import { OIDC_CONFIG_LOG } from './config/oidc-config.events';
import { OidcConfigRepository } from './config/oidc-config.repository';
import { OidcConfigService } from './config/oidc-config.service';
import { OidcDefaults } from './config/oidc-defaults.service';
import { OidcResources } from './config/oidc-resources';
import { AuthorizeService } from './grants/authorize.service';
import { EntityAccess } from './grants/entity-access';
import { OIDC_CODE_LOG } from './grants/grant.events';
import { OidcCodeEventLog, OidcCodeProjection } from './grants/grant.projection';
import { GrantPurgeSweeper } from './grants/grant-purge-sweeper';
import { OidcGrantRepository } from './grants/grant.repository';
import { ScopeTemplates } from './grants/scope-templates';
import { TokenExchangeService } from './grants/token-exchange.service';
import { UserinfoService } from './grants/userinfo.service';
import { DiscoveryService } from './keys/discovery.service';
import { OidcKeyRotationSweeper } from './keys/key-rotation-sweeper';
import { OidcKeyService } from './keys/oidc-key.service';
import { OIDC_EVENT_STORE, OIDC_OPTIONS, OIDC_RUNTIME, type OidcModuleOptions } from './oidc.di';
import { OIDC_LOGS } from './oidc.events';
import { OidcConfigHandlers, OidcProviderHandlers } from './oidc.handlers';
import { oidcReplicaProvider } from './replication/oidc.replay';
import { OidcHistoryHandlers } from './history/oidc-history.handlers';
import { OidcHistoryService } from './history/oidc-history.service';
import { OidcDb } from './shared/oidc.table';
import { SealedJson } from './shared/sealed-json';

/**
 * The oidc service: the OpenID Connect provider under identity/oidc/ (named keys, providers,
 * scopes, clients, assignments, and the authorization code flow). Replicas are stateless. On a
 * replication secondary it replays the primary's oidc log (replication/oidc.replay.ts).
 */
@Module({})
export class OidcModule {
  static register(runtime: ServiceRuntime, options: OidcModuleOptions): DynamicModule {
    return {
      module: OidcModule,
      providers: [
        { provide: OIDC_RUNTIME, useValue: runtime },
        { provide: OIDC_OPTIONS, useValue: options },
        { provide: OidcDb, useValue: new OidcDb(runtime) },
        { provide: SealedJson, useValue: new SealedJson(runtime.cipher) },
        {
          provide: OIDC_EVENT_STORE,
          useValue: createServiceEventStore(runtime, OIDC_LOGS, {
            replicaLog: { transport: runtime.transport },
          }),
        },
        { provide: DrStandby, useValue: new DrStandby(runtime.transport) },
        OidcConfigRepository,
        OidcConfigProjection,
        writerProvider(OidcConfigEventLog, OIDC_EVENT_STORE, OIDC_CONFIG_LOG, OidcConfigProjection),
        OidcResources,
        OidcDefaults,
        OidcConfigService,
        OidcKeyService,
        OidcKeyRotationSweeper,
        DiscoveryService,
        OidcGrantRepository,
        OidcCodeProjection,
        writerProvider(OidcCodeEventLog, OIDC_EVENT_STORE, OIDC_CODE_LOG, OidcCodeProjection),
        EntityAccess,
        ScopeTemplates,
        AuthorizeService,
        TokenExchangeService,
        UserinfoService,
        GrantPurgeSweeper,
        oidcReplicaProvider(runtime),
        OidcHistoryService,
      ],
      controllers: [OidcConfigHandlers, OidcProviderHandlers, OidcHistoryHandlers],
    };
  }
}
