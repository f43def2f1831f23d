import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { combineShares, encryptKeyring, generateRootKey, splitRootKey } from '@coffer/barrier';
import {
  DomainError,
  invalidRequest,
  rekeyContracts,
  type RequestOf,
  type ResponseOf,
  type SysRekeyBackupData,
  type SysRekeyCompleteRaw,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import type { Subscription, Transport } from '@coffer/transport';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { pgpEncrypt, readPgpKeys, readShare, recoverRootKey, SerialQueue, wipeShares } from '../key-shares';
import type { LeaderServed } from '../seal/leader-served';
import { ROOT_KEY_AAD, SealLifecycleService } from '../seal/seal-lifecycle.service';
import { SealRepository, type SealRow } from '../seal/seal.repository';
import { SealService } from '../seal/seal.service';
import {
  decideRekeyConfig,
  rekeyStatusBody,
  restartVerification,
  startRekey,
  submitRekeyShare,
  submitVerifyShare,
  verifyStatusBody,
  type RekeyAttempt,
} from './rekey.decider';
import { RekeyRepository } from './rekey.repository';

const BACKUP_AAD = Buffer.from('coffer/core-sys/rekey-backup');
const c = rekeyContracts;

/** Vault's nonces: 16 random bytes in UUID layout (go-uuid, no version bits). */
export function newNonce(): string {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const wipeAttempt = (attempt: RekeyAttempt | undefined): void => {
  if (!attempt) return;
  wipeShares(attempt.progress);
  if (attempt.verification) {
    attempt.verification.rootKey.fill(0);
    wipeShares(attempt.verification.progress);
  }
};

/**
 * Rekey of the unseal key shares (sys/rekey/*): the attempt lives on the seal leader, in memory
 * (a restart or a new leader cancels it, the current shares staying valid). Completing it gives
 * the keyring a new root key, split into the new shares; the keyring itself is unchanged.
 */
@Injectable()
export class RekeyService implements LeaderServed {
  private readonly logger = new Logger('Rekey');
  #attempt: RekeyAttempt | undefined;
  readonly #queue = new SerialQueue();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly seal: SealService,
    private readonly sealRepo: SealRepository,
    private readonly lifecycle: SealLifecycleService,
    private readonly repo: RekeyRepository,
  ) {}

  serveOnLeader(t: Transport, queue: string): Subscription[] {
    return [
      t.serve(c.rekeyStatus, queue, () => this.#serialised(() => this.status())),
      t.serve(c.rekeyInit, queue, (req) => this.#serialised(() => this.init(req))),
      t.serve(c.rekeyCancel, queue, () => this.#serialised(() => this.cancel())),
      t.serve(c.rekeyUpdate, queue, (req) => this.#serialised(() => this.update(req))),
      t.serve(c.rekeyVerifyStatus, queue, () => this.#serialised(() => this.verifyStatus())),
      t.serve(c.rekeyVerifyRestart, queue, () => this.#serialised(() => this.verifyRestart())),
      t.serve(c.rekeyVerify, queue, (req) => this.#serialised(() => this.verify(req))),
    ];
  }

  reset(): void {
    wipeAttempt(this.#attempt);
    this.#attempt = undefined;
  }

  #serialised<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queue.run(fn);
  }

  /** The seal configuration, once initialised and unsealed (Vault's order of checks). */
  async #sealRow(): Promise<SealRow> {
    const row = await this.sealRepo.load();
    if (!row) throw invalidRequest('server is not yet initialized');
    this.seal.assertUnsealed();
    return row;
  }

  async status(): Promise<ResponseOf<typeof c.rekeyStatus>> {
    const row = await this.#sealRow();
    return { kind: 'raw', body: rekeyStatusBody(this.#attempt, row.secretThreshold) };
  }

  async init(req: RequestOf<typeof c.rekeyInit>): Promise<ResponseOf<typeof c.rekeyInit>> {
    await this.#sealRow();
    const config = decideRekeyConfig(req.body);
    const recipients = await readPgpKeys(config.pgpKeys);
    this.#attempt = startRekey(
      this.#attempt,
      { ...config, pgpFingerprints: recipients.map((r) => r.fingerprint) },
      newNonce(),
    );
    return this.status();
  }

  async cancel(): Promise<ResponseOf<typeof c.rekeyCancel>> {
    await this.#sealRow();
    this.reset();
    return { kind: 'raw', status: 204 };
  }

  async update(req: RequestOf<typeof c.rekeyUpdate>): Promise<ResponseOf<typeof c.rekeyUpdate>> {
    const share = readShare(req.body.key);
    const row = await this.#sealRow();
    const step = submitRekeyShare(this.#attempt, share, req.body.nonce, row.secretThreshold);
    this.#attempt = step.attempt;
    if (step.kind === 'pending') return this.status();
    const current = await recoverRootKey(step.shares, row.keyring);
    current.fill(0);
    const attempt = step.attempt;
    const newRoot = generateRootKey();
    let keep = false;
    try {
      const body = await this.#newShares(attempt, newRoot);
      if (attempt.config.requireVerification) {
        const nonce = newNonce();
        this.#attempt = { ...attempt, verification: { nonce, rootKey: newRoot, progress: [] } };
        keep = true;
        return { kind: 'raw', body: { ...body, verification_required: true, verification_nonce: nonce } };
      }
      await this.#install(newRoot, attempt);
      this.#attempt = undefined;
      return { kind: 'raw', body };
    } finally {
      if (!keep) newRoot.fill(0);
    }
  }

  /** Splits the new root key; with PGP keys encrypts each share (hex text, as Vault) and backs up. */
  async #newShares(attempt: RekeyAttempt, rootKey: Buffer): Promise<SysRekeyCompleteRaw> {
    const { config } = attempt;
    let shares = await splitRootKey(rootKey, config.shares, config.threshold);
    if (config.pgpKeys.length > 0) {
      const recipients = await readPgpKeys(config.pgpKeys);
      const encrypted: Buffer[] = [];
      for (const [i, recipient] of recipients.entries()) {
        const share = shares[i] ?? Buffer.alloc(0);
        encrypted.push(await pgpEncrypt(recipient, Buffer.from(share.toString('hex'))));
      }
      wipeShares(shares);
      shares = encrypted;
      if (config.backup)
        await this.#saveBackup(
          attempt,
          recipients.map((r) => r.fingerprint),
          encrypted,
        );
    }
    try {
      return {
        complete: true,
        nonce: attempt.nonce,
        keys: shares.map((s) => s.toString('hex')),
        keys_base64: shares.map((s) => s.toString('base64')),
        pgp_fingerprints: config.pgpFingerprints.length > 0 ? [...config.pgpFingerprints] : null,
        backup: config.backup,
        verification_required: false,
      };
    } finally {
      wipeShares(shares);
    }
  }

  async #saveBackup(attempt: RekeyAttempt, fingerprints: string[], encrypted: Buffer[]): Promise<void> {
    const keys: Record<string, string[]> = {};
    fingerprints.forEach((fp, i) => {
      (keys[fp] ??= []).push((encrypted[i] ?? Buffer.alloc(0)).toString('hex'));
    });
    const json = Buffer.from(JSON.stringify({ nonce: attempt.nonce, keys }));
    await this.repo.saveBackup(this.seal.barrier.encrypt(json, BACKUP_AAD), this.runtime.clock());
  }

  /** Re-encrypts the keyring under the new root key, serialised with rotation. */
  async #install(rootKey: Buffer, attempt: RekeyAttempt): Promise<void> {
    await this.lifecycle.exclusive(async () => {
      this.seal.assertUnsealed();
      const keyring = this.seal.barrier.exportKeyring();
      try {
        const ok = await this.repo.replaceRootKey(
          {
            secretShares: attempt.config.shares,
            secretThreshold: attempt.config.threshold,
            keyring: encryptKeyring(rootKey, keyring),
            rootKey: this.seal.barrier.encrypt(rootKey, ROOT_KEY_AAD),
          },
          keyring.activeTerm,
          this.runtime.clock(),
        );
        if (!ok) throw new DomainError('internal', 'the keyring changed during the rekey');
      } finally {
        for (const t of keyring.terms) t.key.fill(0);
      }
    });
    this.logger.log(
      `unseal keys rekeyed: ${attempt.config.shares} shares, threshold ${attempt.config.threshold}`,
    );
  }

  async verifyStatus(): Promise<ResponseOf<typeof c.rekeyVerifyStatus>> {
    await this.#sealRow();
    if (!this.#attempt) throw invalidRequest('no rekey configuration found');
    return { kind: 'raw', body: verifyStatusBody(this.#attempt) };
  }

  async verifyRestart(): Promise<ResponseOf<typeof c.rekeyVerifyRestart>> {
    await this.#sealRow();
    if (this.#attempt) {
      wipeShares(this.#attempt.verification?.progress ?? []);
      this.#attempt = restartVerification(this.#attempt, newNonce());
    }
    return this.verifyStatus();
  }

  async verify(req: RequestOf<typeof c.rekeyVerify>): Promise<ResponseOf<typeof c.rekeyVerify>> {
    const share = readShare(req.body.key);
    await this.#sealRow();
    const step = submitVerifyShare(this.#attempt, share, req.body.nonce);
    this.#attempt = step.attempt;
    if (step.kind === 'pending') return { kind: 'raw', body: verifyStatusBody(step.attempt) };
    // Whatever the outcome the round ends: a failure restarts it with a new nonce (Vault).
    this.#attempt = restartVerification(step.attempt, newNonce());
    let rebuilt: Buffer;
    try {
      rebuilt = await combineShares(step.shares);
    } catch {
      throw invalidRequest('rekey verification failed; incorrect key shares supplied');
    } finally {
      wipeShares(step.shares);
    }
    const expected = step.verification.rootKey;
    const same = rebuilt.length === expected.length && timingSafeEqual(rebuilt, expected);
    rebuilt.fill(0);
    if (!same) throw invalidRequest('rekey verification failed; incorrect key shares supplied');
    await this.#install(expected, step.attempt);
    this.reset();
    return { kind: 'raw', body: { nonce: step.verification.nonce, complete: true } };
  }

  /** GET sys/rekey/backup (any replica). */
  async backupRead(): Promise<ResponseOf<typeof c.rekeyBackupRead>> {
    this.seal.assertUnsealed();
    const blob = await this.repo.loadBackup();
    if (!blob) return { kind: 'injected', data: null };
    const backup = JSON.parse(
      this.seal.barrier.decrypt(blob, BACKUP_AAD).toString('utf8'),
    ) as SysRekeyBackupData;
    return { kind: 'injected', data: backup };
  }

  /** DELETE sys/rekey/backup (any replica). */
  async backupDelete(): Promise<ResponseOf<typeof c.rekeyBackupDelete>> {
    this.seal.assertUnsealed();
    await this.repo.deleteBackup();
    return { kind: 'injected', data: null };
  }
}
