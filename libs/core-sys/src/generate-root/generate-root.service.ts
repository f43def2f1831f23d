import { Inject, Injectable } from '@nestjs/common';
import { invalidRequest, rekeyContracts, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { Subscription, Transport } from '@coffer/transport';
import type { LeaderServed } from '../seal/leader-served';
import { SealRepository, type SealRow } from '../seal/seal.repository';
import { SealService } from '../seal/seal.service';
import { newNonce } from '../rekey/rekey.service';
import { generateToken } from '../tokens/token-crypto';
import { TokenService } from '../tokens/token.service';
import { xorDecodeToken } from './operation-token.decider';
import { OperationTokenGenerator } from './operation-token.generator';

const c = rekeyContracts;

/**
 * sys/generate-root/* (root token generation from the unseal key shares) and sys/decode-token.
 * The attempt is leader-only state (served through the seal coordinator).
 */
@Injectable()
export class GenerateRootService implements LeaderServed {
  readonly generator: OperationTokenGenerator;

  constructor(
    private readonly seal: SealService,
    private readonly sealRepo: SealRepository,
    @Inject(TokenService) private readonly tokens: Pick<TokenService, 'createRootToken'>,
  ) {
    this.generator = new OperationTokenGenerator({
      texts: { operation: 'root generation' },
      otpLength: generateToken().length,
      sealRow: () => this.#sealRow(),
      mint: async () => (await this.tokens.createRootToken({})).token,
      newNonce,
    });
  }

  async #sealRow(): Promise<SealRow> {
    const row = await this.sealRepo.load();
    if (!row) throw invalidRequest('Vault is not initialized');
    this.seal.assertUnsealed();
    return row;
  }

  serveOnLeader(t: Transport, queue: string): Subscription[] {
    const g = this.generator;
    return [
      t.serve(c.generateRootStatus, queue, () => g.status()),
      t.serve(c.generateRootInit, queue, (req) => g.start(req.body)),
      t.serve(c.generateRootCancel, queue, () => g.cancel()),
      t.serve(c.generateRootUpdate, queue, (req) => g.update(req.body)),
    ];
  }

  reset(): void {
    this.generator.reset();
  }

  decode(req: RequestOf<typeof c.decodeToken>): ResponseOf<typeof c.decodeToken> {
    this.seal.assertUnsealed();
    return { data: { token: xorDecodeToken(req.body.encoded_token, req.body.otp) } };
  }
}
