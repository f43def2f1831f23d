import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  combineShares,
  createKeyring,
  decryptKeyring,
  encryptKeyring,
  generateRootKey,
  rotateKeyring,
  splitRootKey,
  type KeyringData,
} from '@coffer/barrier';
import {
  DomainError,
  invalidation,
  invalidRequest,
  isDomainError,
  sysContracts,
  type ResponseOf,
  type SysInitBody,
  type SysUnsealBody,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { MountsService } from '../mounts/mounts.service';
import { PolicyService } from '../policies/policy.service';
import { TokenService } from '../tokens/token.service';
import {
  decideInitConfig,
  decideUnsealCommand,
  sealStatusBody,
  submitShare,
  type SealConfig,
  type UnsealProgress,
} from './seal.decider';
import { SealRepository, type SealRow } from './seal.repository';
import { SealService } from './seal.service';
import { BUILD_DATE, SERVICE_VERSION } from './version';

/** Binds the barrier-encrypted root key blob to its purpose. */
export const ROOT_KEY_AAD = Buffer.from('coffer/core-sys/root-key');

const wipe = (keyring: KeyringData): void => keyring.terms.forEach((t) => t.key.fill(0));

export interface Initialised {
  shares: Buffer[];
  rootToken: string;
}

/** sys/seal and sys/rotate answer nothing but their status code. */
type NoDataResponse = ResponseOf<typeof sysContracts.rotate>;
/** sys/seal-status and sys/unseal answer the same raw body. */
type SealStatusResponse = ResponseOf<typeof sysContracts.sealStatus>;

/**
 * The seal use cases (Vault's model): init, unseal, seal, rotate and the seal status. They run
 * on the seal leader only (SealCoordinator serves them), so the unseal progress kept here is
 * the cluster's. Calls are serialised: shares of concurrent requests never interleave.
 */
@Injectable()
export class SealLifecycleService {
  private readonly logger = new Logger('SealLifecycle');
  #progress: UnsealProgress | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly seal: SealService,
    private readonly repo: SealRepository,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'ensureDefaults'>,
    @Inject(PolicyService) private readonly policies: Pick<PolicyService, 'ensureDefault'>,
    @Inject(TokenService) private readonly tokens: Pick<TokenService, 'createRootToken'>,
  ) {}

  #serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Runs `fn` serialised with init, unseal, seal and rotate (rekey installs a new root key). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.#serialised(fn);
  }

  /** Forgets the unseal progress (on losing the leadership). */
  resetProgress(): void {
    this.#progress = undefined;
  }

  status(): Promise<SealStatusResponse> {
    return this.#serialised(() => this.#status());
  }

  async #status(): Promise<SealStatusResponse> {
    const row = await this.repo.load();
    const body = sealStatusBody({
      initialized: row !== undefined,
      sealed: !this.seal.isUnsealed(),
      config: row && { secretShares: row.secretShares, secretThreshold: row.secretThreshold },
      progress: this.#progress,
      version: SERVICE_VERSION,
      buildDate: BUILD_DATE,
      storageType: await this.seal.storageType(),
      cluster: row && { name: row.clusterName, id: row.clusterId },
    });
    return { kind: 'raw', body };
  }

  /** PUT sys/init: the service stays sealed afterwards, like Vault. */
  init(req: { body: SysInitBody }): Promise<ResponseOf<typeof sysContracts.init>> {
    return this.#serialised(async () => {
      if (await this.seal.isInitialized()) throw invalidRequest('Vault is already initialized');
      const config = decideInitConfig(req.body);
      const { shares, rootToken } = await this.#initialise(config, undefined);
      try {
        return {
          kind: 'raw',
          body: {
            keys: shares.map((s) => s.toString('hex')),
            keys_base64: shares.map((s) => s.toString('base64')),
            root_token: rootToken,
          },
        };
      } finally {
        shares.forEach((s) => s.fill(0));
      }
    });
  }

  /** Init for dev bootstrap (one share, chosen root token id); the caller wipes the shares. */
  initialise(config: SealConfig, rootTokenId: string | undefined): Promise<Initialised> {
    return this.#serialised(async () => {
      if (await this.seal.isInitialized()) throw invalidRequest('Vault is already initialized');
      return this.#initialise(config, rootTokenId);
    });
  }

  /**
   * Generates the root key and keyring, stores them, and (with the barrier open for this
   * replica's own writes only) seeds the default mounts and policy and the root token.
   */
  async #initialise(config: SealConfig, rootTokenId: string | undefined): Promise<Initialised> {
    const now = this.runtime.clock();
    const rootKey = generateRootKey();
    const keyring = createKeyring(now);
    try {
      const shares = await splitRootKey(rootKey, config.secretShares, config.secretThreshold);
      this.seal.barrier.load(keyring);
      try {
        const row: SealRow = {
          secretShares: config.secretShares,
          secretThreshold: config.secretThreshold,
          keyring: encryptKeyring(rootKey, keyring),
          rootKey: this.seal.barrier.encrypt(rootKey, ROOT_KEY_AAD),
          activeTerm: keyring.activeTerm,
          clusterName: `coffer-cluster-${randomBytes(4).toString('hex')}`,
          clusterId: randomUUID(),
        };
        if (!(await this.repo.insert(row, now))) throw invalidRequest('Vault is already initialized');
        this.seal.markInitialized();
        await this.mounts.ensureDefaults();
        await this.policies.ensureDefault();
        const root = await this.tokens.createRootToken(rootTokenId === undefined ? {} : { id: rootTokenId });
        return { shares, rootToken: root.token };
      } finally {
        if (!this.seal.isUnsealed()) this.seal.barrier.wipe();
        await this.#announce();
      }
    } finally {
      rootKey.fill(0);
      wipe(keyring);
    }
  }

  /** PUT sys/unseal: one share per call; the keyring opens once the threshold is reached. */
  unseal(req: { body: SysUnsealBody }): Promise<ResponseOf<typeof sysContracts.unseal>> {
    return this.#serialised(async () => {
      const command = decideUnsealCommand(req.body);
      const row = await this.repo.load();
      if (!row) throw new DomainError('not_initialized', 'Vault is not initialized');
      if (this.seal.isUnsealed()) return this.#status();
      if (command.kind === 'reset') {
        this.#progress = undefined;
        return this.#status();
      }
      const step = submitShare(this.#progress, command.share, row.secretThreshold, randomUUID);
      if (step.kind === 'pending') {
        this.#progress = step.progress;
        return this.#status();
      }
      // Whatever the outcome, a complete set of shares ends the attempt (Vault resets too).
      this.#progress = undefined;
      const keyring = await this.#recoverKeyring(step.shares, row.keyring);
      try {
        this.seal.unlock(keyring);
      } finally {
        wipe(keyring);
      }
      await this.#afterUnseal();
      return this.#status();
    });
  }

  async #recoverKeyring(shares: readonly Buffer[], blob: Buffer): Promise<KeyringData> {
    let rootKey: Buffer;
    try {
      rootKey = await combineShares(shares);
    } catch (error) {
      if (isDomainError(error)) throw invalidRequest(`failed to compute combined key: ${error.message}`);
      throw error;
    } finally {
      shares.forEach((s) => s.fill(0));
    }
    try {
      return decryptKeyring(rootKey, blob);
    } catch (error) {
      if (isDomainError(error) && error.code === 'invalid_request')
        throw invalidRequest('Unseal failed, invalid key');
      throw error;
    } finally {
      rootKey.fill(0);
    }
  }

  /** Re-creates built-ins an interrupted init may have left out, then tells everyone. */
  async #afterUnseal(): Promise<void> {
    try {
      await this.mounts.ensureDefaults();
      await this.policies.ensureDefault();
    } catch (error) {
      this.logger.error(`could not check the built-in mounts and policies: ${(error as Error).message}`);
    }
    await this.#announce();
  }

  /** PUT sys/seal: wipes the keyring here; the broadcast makes every replica follow. */
  sealNow(): Promise<NoDataResponse> {
    return this.#serialised(async () => {
      this.#progress = undefined;
      if (this.seal.isUnsealed()) {
        this.seal.lock();
        await this.#announce();
      }
      return { kind: 'envelope' };
    });
  }

  /**
   * POST sys/rotate: a new keyring term for new writes. The keyring is re-encrypted with the
   * root key, which any keyring holder can read (it is stored under the barrier).
   */
  rotate(): Promise<NoDataResponse> {
    return this.#serialised(async () => {
      this.seal.assertUnsealed();
      const row = await this.repo.load();
      if (!row) throw new DomainError('not_initialized', 'Vault is not initialized');
      const now = this.runtime.clock();
      const current = this.seal.barrier.exportKeyring();
      const next = rotateKeyring(current, now);
      wipe(current);
      try {
        const rootKey = this.seal.barrier.decrypt(row.rootKey, ROOT_KEY_AAD);
        let blob: Buffer;
        try {
          blob = encryptKeyring(rootKey, next);
        } finally {
          rootKey.fill(0);
        }
        if (!(await this.repo.updateKeyring(blob, next.activeTerm, now))) {
          throw new DomainError('internal', 'the keyring was rotated concurrently');
        }
        this.seal.unlock(next);
      } finally {
        wipe(next);
      }
      await this.#announce();
      return { kind: 'injected' };
    });
  }

  /** invalidation {kind:'seal'}: gateways refresh the seal state, replicas and engines the keyring. */
  async #announce(): Promise<void> {
    try {
      await this.runtime.transport.publish(invalidation, { kind: 'seal', keys: [] });
    } catch (error) {
      // The state change already happened; periodic re-syncs pick it up.
      this.logger.error(`could not publish the seal broadcast: ${(error as Error).message}`);
    }
  }
}
