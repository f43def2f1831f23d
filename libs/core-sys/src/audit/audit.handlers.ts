import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { auditContracts, coreAuditConfig, type ResponseOf, type RequestOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { AuditService } from './audit.service';

type Req<K extends keyof typeof auditContracts> = RequestOf<(typeof auditContracts)[K]>;
type Res<K extends keyof typeof auditContracts> = ResponseOf<(typeof auditContracts)[K]>;

/** sys/audit, sys/audit-hash, sys/config/auditing/request-headers, and the gateway's config lookup. */
@Controller()
export class AuditHandlers {
  constructor(private readonly audit: AuditService) {}

  @Handles(auditContracts.list)
  list(): Promise<Res<'list'>> {
    return this.audit.list();
  }

  @Handles(auditContracts.enable)
  enable(@Payload() req: Req<'enable'>): Promise<Res<'enable'>> {
    return this.audit.enable(req);
  }

  @Handles(auditContracts.disable)
  disable(@Payload() req: Req<'disable'>): Promise<Res<'disable'>> {
    return this.audit.disable(req);
  }

  @Handles(auditContracts.hash)
  hash(@Payload() req: Req<'hash'>): Promise<Res<'hash'>> {
    return this.audit.hash(req);
  }

  @Handles(auditContracts.headersList)
  headers(): Promise<Res<'headersList'>> {
    return this.audit.headers();
  }

  @Handles(auditContracts.headerRead)
  header(@Payload() req: Req<'headerRead'>): Promise<Res<'headerRead'>> {
    return this.audit.header(req);
  }

  @Handles(auditContracts.headerWrite)
  setHeader(@Payload() req: Req<'headerWrite'>): Promise<Res<'headerWrite'>> {
    return this.audit.setHeader(req);
  }

  @Handles(auditContracts.headerDelete)
  removeHeader(@Payload() req: Req<'headerDelete'>): Promise<Res<'headerDelete'>> {
    return this.audit.removeHeader(req);
  }

  @Handles(coreAuditConfig)
  config(): ReturnType<AuditService['config']> {
    return this.audit.config();
  }
}
