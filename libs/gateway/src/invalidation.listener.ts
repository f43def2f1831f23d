import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { invalidation, type Invalidation } from '@coffer/contracts';
import type { Subscription, Transport } from '@coffer/transport';
import { AuditBroker } from './audit/audit-broker.service';
import { AclEvaluator } from './auth/acl-evaluator.service';
import { EntityCache } from './auth/entity-cache.service';
import { PolicyCache } from './auth/policy-cache.service';
import { TokenResolver } from './auth/token-resolver.service';
import type { GatewayLogger } from './gateway.logger';
import { GATEWAY_LOGGER, GATEWAY_TRANSPORT } from './gateway.options';
import { ApiLockGate } from './namespaces/api-lock-gate.service';
import { MountTableService } from './routing/mount-table.service';
import { SealStateService } from './routing/seal-state.service';

/**
 * Applies core-sys's cache-invalidation broadcasts. The handler is synchronous on purpose: it runs
 * as the message arrives, before the reply to the write that caused it is processed.
 */
@Injectable()
export class InvalidationListener implements OnModuleInit, OnModuleDestroy {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    private readonly tokens: TokenResolver,
    private readonly policies: PolicyCache,
    private readonly entities: EntityCache,
    private readonly acls: AclEvaluator,
    private readonly mounts: MountTableService,
    private readonly seal: SealStateService,
    private readonly audit: AuditBroker,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
    private readonly locks: ApiLockGate,
  ) {}

  onModuleInit(): void {
    this.subscription = this.transport.subscribe(invalidation, (event) => this.apply(event));
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  apply(event: Invalidation): void {
    switch (event.kind) {
      case 'token':
        this.tokens.invalidate(event.keys);
        break;
      case 'policy':
        this.policies.invalidate(event.keys);
        this.acls.invalidatePolicies();
        break;
      case 'entity':
        this.entities.invalidate(event.keys);
        this.acls.invalidateEntities();
        break;
      case 'mounts':
        this.mounts.invalidate();
        this.locks.invalidate();
        break;
      case 'seal':
        this.seal.invalidate();
        this.mounts.invalidate();
        this.locks.invalidate();
        this.audit.invalidate();
        break;
      case 'audit':
        this.audit.invalidate();
        break;
      default:
        this.logger.warn(`unknown invalidation kind ${JSON.stringify((event as { kind: unknown }).kind)}`);
    }
  }
}
