import { Inject, Injectable, Logger } from '@nestjs/common';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDomainError, sysUnsealBody } from '@coffer/contracts';
import { MountsService } from '../mounts/mounts.service';
import { TokenService } from '../tokens/token.service';
import { SealCoordinator } from './seal-coordinator';
import { SealLifecycleService } from './seal-lifecycle.service';
import {
  SealService,
  type DevBootstrapOptions,
  type DevBootstrapper,
  type DevBootstrapResult,
} from './seal.service';

const KEY_FILE = 'dev-unseal-key';
const LEADERSHIP_WAIT_MS = 10_000;

/**
 * Dev mode's start-up (Vault's `-dev`): one unseal key, unsealed at boot, a known root token and
 * the engines' default dev mounts (kv v2 at secret/). INSECURE BY DESIGN: with a persistent data directory the unseal key
 * is written next to the data (`<dataDir>/dev-unseal-key`, mode 0600) so a restart can unseal
 * itself. Never use dev mode for real secrets.
 */
@Injectable()
export class DevBootstrapService implements DevBootstrapper {
  private readonly logger = new Logger('DevBootstrap');
  constructor(
    private readonly seal: SealService,
    private readonly lifecycle: SealLifecycleService,
    private readonly coordinator: SealCoordinator,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'enableSecretEngine'>,
    @Inject(TokenService) private readonly tokens: Pick<TokenService, 'createRootToken' | 'resolve'>,
  ) {}

  async devBootstrap(opts: DevBootstrapOptions): Promise<DevBootstrapResult> {
    await this.#awaitLeadership();
    const keyFile = opts.dataDir === undefined ? undefined : join(opts.dataDir, KEY_FILE);
    if (!(await this.seal.isInitialized())) {
      const { shares, rootToken } = await this.lifecycle.initialise(
        { secretShares: 1, secretThreshold: 1 },
        opts.rootTokenId,
      );
      const unsealKey = shares.map((s) => s.toString('base64'))[0] ?? '';
      shares.forEach((s) => s.fill(0));
      if (keyFile !== undefined && opts.dataDir !== undefined) {
        await mkdir(opts.dataDir, { recursive: true });
        await writeFile(keyFile, `${unsealKey}\n`, { mode: 0o600 });
      }
      await this.#unseal(unsealKey);
      for (const { path, ...mount } of opts.mounts ?? []) {
        await this.mounts.enableSecretEngine(path, { ...mount });
      }
      return { unsealKey, rootToken };
    }
    if (keyFile === undefined) {
      throw new Error(
        'dev bootstrap: the storage is already initialised and no dev data directory holds its unseal key',
      );
    }
    const unsealKey = (await readFile(keyFile, 'utf8')).trim();
    if (!(await this.#unsealSaved(unsealKey))) {
      // After a rekey the saved key is stale: start sealed, the new shares unseal over HTTP.
      this.logger.warn('the saved dev unseal key no longer unseals the storage (rekeyed?): use sys/unseal');
      return { unsealKey, rootToken: opts.rootTokenId ?? '(sealed)', sealed: true };
    }
    return { unsealKey, rootToken: await this.#rootToken(opts.rootTokenId) };
  }

  async #awaitLeadership(): Promise<void> {
    const deadline = Date.now() + LEADERSHIP_WAIT_MS;
    while (!this.coordinator.isLeader) {
      if (Date.now() > deadline)
        throw new Error('dev bootstrap: this replica did not become the seal leader');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Unseals with the saved key; false (progress reset) when it is no longer a valid share. */
  async #unsealSaved(key: string): Promise<boolean> {
    try {
      await this.lifecycle.unseal({ body: sysUnsealBody.parse({ key }) });
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'invalid_request') throw error;
    }
    if (this.seal.isUnsealed()) return true;
    await this.lifecycle.unseal({ body: sysUnsealBody.parse({ reset: true }) });
    return false;
  }

  async #unseal(key: string): Promise<void> {
    await this.lifecycle.unseal({ body: sysUnsealBody.parse({ key }) });
    if (!this.seal.isUnsealed()) throw new Error('dev bootstrap: the unseal key did not unseal the storage');
  }

  /** The requested root token if it still exists, else a new one (with that id if given). */
  async #rootToken(id: string | undefined): Promise<string> {
    if (id !== undefined) {
      try {
        await this.tokens.resolve(id);
        return id;
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'invalid_token') throw error;
      }
    }
    return (await this.tokens.createRootToken(id === undefined ? {} : { id })).token;
  }
}
