import { invalidRequest, type SysGenerateRootStatusRaw } from '@coffer/contracts';
import { pgpEncrypt, readPgpKeys, readShare, recoverRootKey, SerialQueue, wipeShares } from '../key-shares';
import type { SealRow } from '../seal/seal.repository';
import { randomBase62 } from '../tokens/token-crypto';
import {
  decideTokenProtection,
  operationTokenStatusBody,
  startOperationToken,
  submitOperationShare,
  xorEncodeToken,
  type OperationTokenAttempt,
  type OperationTokenStart,
  type OperationTokenTexts,
} from './operation-token.decider';

export interface OperationTokenOptions {
  texts: OperationTokenTexts;
  /** length of the tokens `mint` makes (the one-time pad has the same length) */
  otpLength: number;
  /** the seal configuration, failing when not initialised or sealed */
  sealRow: () => Promise<SealRow>;
  /** creates the token once the shares proved the root key */
  mint: () => Promise<string>;
  newNonce: () => string;
}

type Status = { kind: 'raw'; body: SysGenerateRootStatusRaw };

/**
 * One operation-token generation at a time (root token now, DR operation token later), in the
 * seal leader's memory. Calls are serialised so shares of concurrent requests never interleave.
 */
export class OperationTokenGenerator {
  #attempt: OperationTokenAttempt | undefined;
  readonly #queue = new SerialQueue();

  constructor(private readonly options: OperationTokenOptions) {}

  #serialised<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queue.run(fn);
  }

  reset(): void {
    wipeShares(this.#attempt?.progress ?? []);
    this.#attempt = undefined;
  }

  async #status(otp?: string): Promise<Status> {
    const row = await this.options.sealRow();
    const body = operationTokenStatusBody({
      attempt: this.#attempt,
      required: row.secretThreshold,
      otpLength: this.options.otpLength,
      ...(otp === undefined ? {} : { otp }),
    });
    return { kind: 'raw', body };
  }

  status(): Promise<Status> {
    return this.#serialised(() => this.#status());
  }

  start(body: { otp: string; pgp_key: string }): Promise<Status> {
    return this.#serialised(async () => {
      await this.options.sealRow();
      if (this.#attempt) throw invalidRequest(`${this.options.texts.operation} already in progress`);
      const protection = decideTokenProtection(body, this.options.otpLength, () =>
        randomBase62(this.options.otpLength),
      );
      let start: OperationTokenStart;
      if (protection.kind === 'pgp') {
        const [recipient] = await readPgpKeys([protection.key]);
        start = { kind: 'pgp', key: protection.key, fingerprint: recipient?.fingerprint ?? '' };
      } else {
        start = protection;
      }
      this.#attempt = startOperationToken(this.#attempt, start, this.options.newNonce(), this.options.texts);
      return this.#status(protection.kind === 'otp' && protection.generated ? protection.otp : undefined);
    });
  }

  cancel(): Promise<{ kind: 'raw'; status: number }> {
    return this.#serialised(async () => {
      await this.options.sealRow();
      this.reset();
      return { kind: 'raw', status: 204 };
    });
  }

  update(body: { key: string; nonce: string }): Promise<Status> {
    return this.#serialised(async () => {
      const share = readShare(body.key);
      const row = await this.options.sealRow();
      const step = submitOperationShare(
        this.#attempt,
        share,
        body.nonce,
        row.secretThreshold,
        this.options.texts,
      );
      if (step.kind === 'pending') {
        this.#attempt = step.attempt;
        return this.#status();
      }
      // A complete set of shares ends the attempt, whatever the outcome (Vault).
      this.#attempt = undefined;
      const rootKey = await recoverRootKey(step.shares, row.keyring);
      rootKey.fill(0);
      const token = await this.options.mint();
      const attempt = step.attempt;
      let encodedToken: string;
      if (attempt.pgp) {
        const [recipient] = await readPgpKeys([attempt.pgp.key]);
        if (!recipient) throw invalidRequest('error parsing PGP key');
        encodedToken = (await pgpEncrypt(recipient, Buffer.from(token))).toString('base64');
      } else {
        encodedToken = xorEncodeToken(token, attempt.otp ?? '');
      }
      const done = operationTokenStatusBody({
        attempt: undefined,
        required: row.secretThreshold,
        otpLength: this.options.otpLength,
        complete: {
          nonce: attempt.nonce,
          encodedToken,
          fingerprint: attempt.pgp?.fingerprint ?? '',
          progress: step.shares.length,
        },
      });
      return { kind: 'raw', body: done };
    });
  }
}
