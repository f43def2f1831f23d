import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { RequestOf, ResponseOf } from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { Handles } from '@coffer/transport';
import { CaReadService } from './ca-read.service';
import { CaSigningService } from './ca-signing.service';
import { IssuerService } from './issuer.service';

type Req<K extends keyof typeof pki> = RequestOf<(typeof pki)[K]>;
type Res<K extends keyof typeof pki> = Promise<ResponseOf<(typeof pki)[K]>>;

/** The CA of a mount: generation, import, signing other CAs, and the public reads (no logic). */
@Controller()
export class IssuerHandlers {
  constructor(
    private readonly issuer: IssuerService,
    private readonly signing: CaSigningService,
    private readonly reads: CaReadService,
  ) {}

  @Handles(pki.rootGenerate)
  rootGenerate(@Payload() req: Req<'rootGenerate'>): Res<'rootGenerate'> {
    return this.issuer.generateRoot(req);
  }

  @Handles(pki.rootDelete)
  rootDelete(@Payload() req: Req<'rootDelete'>): Res<'rootDelete'> {
    return this.issuer.deleteRoot(req);
  }

  @Handles(pki.intermediateGenerate)
  intermediateGenerate(@Payload() req: Req<'intermediateGenerate'>): Res<'intermediateGenerate'> {
    return this.issuer.generateIntermediate(req);
  }

  @Handles(pki.intermediateSetSigned)
  setSigned(@Payload() req: Req<'intermediateSetSigned'>): Res<'intermediateSetSigned'> {
    return this.issuer.setSigned(req);
  }

  @Handles(pki.configCa)
  configCa(@Payload() req: Req<'configCa'>): Res<'configCa'> {
    return this.issuer.configCa(req);
  }

  @Handles(pki.rootSignIntermediate)
  signIntermediate(@Payload() req: Req<'rootSignIntermediate'>): Res<'rootSignIntermediate'> {
    return this.signing.signIntermediate(req);
  }

  @Handles(pki.rootSignSelfIssued)
  signSelfIssued(@Payload() req: Req<'rootSignSelfIssued'>): Res<'rootSignSelfIssued'> {
    return this.signing.signSelfIssued(req);
  }

  @Handles(pki.caDer)
  caDer(@Payload() req: Req<'caDer'>): Res<'caDer'> {
    return this.reads.caDer(req.mount.uuid);
  }

  @Handles(pki.caPem)
  caPem(@Payload() req: Req<'caPem'>): Res<'caPem'> {
    return this.reads.caPem(req.mount.uuid);
  }

  @Handles(pki.caChain)
  caChain(@Payload() req: Req<'caChain'>): Res<'caChain'> {
    return this.reads.caChain(req.mount.uuid);
  }

  @Handles(pki.crlDer)
  crlDer(@Payload() req: Req<'crlDer'>): Res<'crlDer'> {
    return this.reads.crlDer(req.mount.uuid);
  }

  @Handles(pki.crlPem)
  crlPem(@Payload() req: Req<'crlPem'>): Res<'crlPem'> {
    return this.reads.crlPem(req.mount.uuid);
  }

  @Handles(pki.certRead)
  certRead(@Payload() req: Req<'certRead'>): Res<'certRead'> {
    return this.reads.cert(req);
  }
}
