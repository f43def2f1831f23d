import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { rekeyContracts, type RequestOf, type ResponseOf } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { GenerateRootService } from './generate-root.service';

/** sys/decode-token, served by every replica (the attempt itself is leader-only). */
@Controller()
export class GenerateRootHandlers {
  constructor(private readonly generateRoot: GenerateRootService) {}

  @Handles(rekeyContracts.decodeToken)
  decode(
    @Payload() req: RequestOf<typeof rekeyContracts.decodeToken>,
  ): ResponseOf<typeof rekeyContracts.decodeToken> {
    return this.generateRoot.decode(req);
  }
}
