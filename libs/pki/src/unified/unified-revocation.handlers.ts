import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { RequestOf, ResponseOf } from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { Handles } from '@coffer/transport';
import { UnifiedRevocationPass } from './unified-revocation.pass';
import { UnifiedRevocationService } from './unified-revocation.service';

type Req<K extends keyof typeof pki> = RequestOf<(typeof pki)[K]>;
type Res<K extends keyof typeof pki> = Promise<ResponseOf<(typeof pki)[K]>>;

/**
 * The records a performance secondary forwards to its primary (no route: the replication
 * service delivers them); each kicks a pass, since this cluster may have issued the serial.
 */
@Controller()
export class UnifiedRevocationHandlers {
  constructor(
    private readonly unified: UnifiedRevocationService,
    private readonly pass: UnifiedRevocationPass,
  ) {}

  @Handles(pki.unifiedRevocationRecord)
  async record(@Payload() req: Req<'unifiedRevocationRecord'>): Res<'unifiedRevocationRecord'> {
    const { serial, revoked_at_ms, issuer_key_id } = req.body;
    await this.unified.recordHere(req.mount.uuid, {
      serial,
      revokedAtMs: revoked_at_ms,
      issuerKeyId: issuer_key_id,
    });
    return {};
  }

  @Handles(pki.crossRevocationRequest)
  async request(@Payload() req: Req<'crossRevocationRequest'>): Res<'crossRevocationRequest'> {
    await this.unified.requestHere(req.mount.uuid, req.body.serial);
    this.pass.kick();
    return {};
  }
}
