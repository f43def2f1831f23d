import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuditBroker } from './audit/audit-broker.service';
import { AclEvaluator } from './auth/acl-evaluator.service';
import { EntityCache } from './auth/entity-cache.service';
import { PolicyCache } from './auth/policy-cache.service';
import { TokenResolver } from './auth/token-resolver.service';
import { GATEWAY_LOGGER, GATEWAY_OPTIONS, GATEWAY_TRANSPORT, type GatewayOptions } from './gateway.options';
import type { GatewayLogger } from './gateway.logger';
import { GatewayService } from './gateway.service';
import { GatewayExceptionFilter } from './http/gateway-exception.filter';
import { InvalidationListener } from './invalidation.listener';
import { MountTableService } from './routing/mount-table.service';
import { ApiLockGate } from './namespaces/api-lock-gate.service';
import { SealStateService } from './routing/seal-state.service';
import { ReplicationGate } from './replication/replication-gate.service';
import { SentinelEnforcer } from './sentinel/sentinel-enforcer.service';
import { SentinelPolicyStore } from './sentinel/sentinel-policy-store.service';

const SILENT: GatewayLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** The gateway's Nest module: caches, the request pipeline and the invalidation listener. */
@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions): DynamicModule {
    const logger: GatewayLogger =
      options.logger === false
        ? SILENT
        : options.logger === undefined || Array.isArray(options.logger)
          ? new Logger('Gateway')
          : options.logger;
    return {
      module: GatewayModule,
      providers: [
        { provide: GATEWAY_OPTIONS, useValue: options },
        { provide: GATEWAY_TRANSPORT, useValue: options.transport },
        { provide: GATEWAY_LOGGER, useValue: logger },
        SealStateService,
        MountTableService,
        ApiLockGate,
        TokenResolver,
        PolicyCache,
        EntityCache,
        AclEvaluator,
        AuditBroker,
        InvalidationListener,
        SentinelPolicyStore,
        SentinelEnforcer,
        ReplicationGate,
        GatewayService,
        {
          provide: APP_FILTER,
          useFactory: (service: GatewayService) => new GatewayExceptionFilter(service),
          inject: [GatewayService],
        },
      ],
      exports: [GatewayService],
    };
  }
}
