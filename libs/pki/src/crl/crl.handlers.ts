import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { RequestOf, ResponseOf } from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { Handles } from '@coffer/transport';
import { CaReadService } from '../issuer/ca-read.service';
import { SettingsService } from '../settings/settings.service';
import { CrlService } from './crl.service';

type Req<K extends keyof typeof pki> = RequestOf<(typeof pki)[K]>;
type Res<K extends keyof typeof pki> = Promise<ResponseOf<(typeof pki)[K]>>;

/** crl/rotate, unified-crl, config/crl and config/urls (no logic). */
@Controller()
export class CrlHandlers {
  constructor(
    private readonly crls: CrlService,
    private readonly settings: SettingsService,
    private readonly reads: CaReadService,
  ) {}

  @Handles(pki.unifiedCrlDer)
  unifiedDer(@Payload() req: Req<'unifiedCrlDer'>): Res<'unifiedCrlDer'> {
    return this.reads.crlDer(req.mount.uuid, 'unified');
  }

  @Handles(pki.unifiedCrlPem)
  unifiedPem(@Payload() req: Req<'unifiedCrlPem'>): Res<'unifiedCrlPem'> {
    return this.reads.crlPem(req.mount.uuid, 'unified');
  }

  @Handles(pki.crlRotate)
  async rotate(@Payload() req: Req<'crlRotate'>): Res<'crlRotate'> {
    await this.crls.rotate(req.mount.uuid);
    return { data: { success: true } };
  }

  @Handles(pki.crlConfigRead)
  readConfig(@Payload() req: Req<'crlConfigRead'>): Res<'crlConfigRead'> {
    return this.settings.readCrlConfig(req);
  }

  @Handles(pki.crlConfigWrite)
  writeConfig(@Payload() req: Req<'crlConfigWrite'>): Res<'crlConfigWrite'> {
    return this.settings.writeCrlConfig(req);
  }

  @Handles(pki.urlsRead)
  readUrls(@Payload() req: Req<'urlsRead'>): Res<'urlsRead'> {
    return this.settings.readUrls(req);
  }

  @Handles(pki.urlsWrite)
  writeUrls(@Payload() req: Req<'urlsWrite'>): Res<'urlsWrite'> {
    return this.settings.writeUrls(req);
  }
}
