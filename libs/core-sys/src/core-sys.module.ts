import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { createServiceEventStore, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { CORE_SYS_EVENT_STORE, CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from './core-sys.di';
import { CORE_SYS_LOGS } from './core-sys.events';
import { CoreSysDb } from './core-sys.table';
import { sealControllers, sealProviders } from './seal';
import { mountsControllers, mountsProviders } from './mounts';
import { policiesControllers, policiesProviders } from './policies';
import { capabilitiesControllers, capabilitiesProviders } from './capabilities';
import { tokensControllers, tokensProviders } from './tokens';
import { tokenRolesControllers, tokenRolesProviders } from './token-roles';
import { userpassControllers, userpassProviders } from './userpass';
import { identityControllers, identityProviders } from './identity';
import { approleControllers, approleProviders } from './approle';
import { auditControllers, auditProviders } from './audit';
import { leasesControllers, leasesProviders } from './leases';
import { wrappingControllers, wrappingProviders } from './wrapping';
import { rekeyControllers, rekeyProviders } from './rekey';
import { generateRootControllers, generateRootProviders } from './generate-root';
import { pluginsControllers, pluginsProviders } from './plugins';
import { passwordPoliciesControllers, passwordPoliciesProviders } from './password-policies';
import { sentinelPoliciesControllers, sentinelPoliciesProviders } from './sentinel-policies';
import { metricsControllers, metricsProviders } from './metrics';
import { namespacesControllers, namespacesProviders } from './namespaces';
import { haStatusControllers, haStatusProviders } from './ha-status';
import { historyControllers, historyProviders } from './history';
import { coreSysReplicaProvider, replicationControllers, replicationProviders } from './replication';

/**
 * core-sys: seal/init/unseal/health, mounts and auth methods, ACL policies, capabilities,
 * the token store, userpass and identity. One Nest module so aggregates can depend on each
 * other's services (always through narrow Pick<> types).
 */
@Module({})
export class CoreSysModule {
  static register(runtime: ServiceRuntime, options: CoreSysOptions): DynamicModule {
    const shared: Provider[] = [
      { provide: SERVICE_RUNTIME, useValue: runtime },
      { provide: CORE_SYS_OPTIONS, useValue: options },
      { provide: CoreSysDb, useValue: new CoreSysDb(runtime) },
      {
        provide: CORE_SYS_EVENT_STORE,
        // the primary's mount table on a secondary, for the history of engine paths (history-state.service.ts)
        useValue: createServiceEventStore(runtime, CORE_SYS_LOGS, {
          replicaLog: { transport: runtime.transport, foldedTable: `${runtime.schema}.replica_folded` },
        }),
      },
      { provide: DrStandby, useValue: new DrStandby(runtime.transport) },
    ];
    return {
      module: CoreSysModule,
      providers: [
        ...shared,
        ...sealProviders,
        ...mountsProviders,
        ...policiesProviders,
        ...capabilitiesProviders,
        ...tokensProviders,
        ...tokenRolesProviders,
        ...userpassProviders,
        ...identityProviders,
        ...approleProviders,
        ...auditProviders,
        ...leasesProviders,
        ...wrappingProviders,
        ...rekeyProviders,
        ...generateRootProviders,
        ...pluginsProviders,
        ...passwordPoliciesProviders,
        ...sentinelPoliciesProviders,
        ...metricsProviders,
        ...namespacesProviders,
        ...haStatusProviders,
        ...historyProviders,
        ...replicationProviders,
        coreSysReplicaProvider(runtime),
      ],
      controllers: [
        ...sealControllers,
        ...mountsControllers,
        ...policiesControllers,
        ...capabilitiesControllers,
        ...tokensControllers,
        ...tokenRolesControllers,
        ...userpassControllers,
        ...identityControllers,
        ...approleControllers,
        ...auditControllers,
        ...leasesControllers,
        ...wrappingControllers,
        ...rekeyControllers,
        ...generateRootControllers,
        ...pluginsControllers,
        ...passwordPoliciesControllers,
        ...sentinelPoliciesControllers,
        ...metricsControllers,
        ...namespacesControllers,
        ...haStatusControllers,
        ...historyControllers,
        ...replicationControllers,
      ],
    };
  }
}
