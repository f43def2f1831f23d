import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  Barrier,
  sealKeyringForRecipient,
  verifyKeyringRequestMac,
  type KeyringData,
  type SealedKeyring,
} from '@coffer/barrier';
import {
  coreBarrierKeyring,
  DomainError,
  sysContracts,
  type ContractRequest,
  type ResponseOf,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import type { DevMount } from '@coffer/service-host';
import type { Subscription } from '@coffer/transport';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
import { decideHealthStatus, healthBody, type HealthQuery } from './health';
import { PEER_QUEUE, peerKeyring } from './seal.contracts';
import { SealRepository } from './seal.repository';
import { SERVICE_VERSION } from './version';

export interface DevBootstrapOptions {
  /** id of the root token to create (dev mode's well-known token) */
  rootTokenId?: string;
  /** persistent dev data directory: the unseal key is kept in `<dataDir>/dev-unseal-key` */
  dataDir?: string;
  /** secrets engines enabled at first start (the engines' default dev mounts, e.g. kv v2 at secret/) */
  mounts?: readonly DevMount[];
}

export interface DevBootstrapResult {
  /** base64 unseal key */
  unsealKey: string;
  rootToken: string;
  /** the saved key no longer unseals the storage (its shares were rekeyed): started sealed */
  sealed?: boolean;
}

/** Implemented by SealLifecycleService; resolved lazily to keep SealService a leaf dependency. */
export interface DevBootstrapper {
  devBootstrap(opts: DevBootstrapOptions): Promise<DevBootstrapResult>;
}
export const DEV_BOOTSTRAPPER = Symbol('DEV_BOOTSTRAPPER');

const sealedError = () => new DomainError('sealed', 'Vault is sealed');

/**
 * This replica's seal state: the barrier (runtime.cipher), whether it is open, and the keyring
 * hand-out to peers while it is. Every other core-sys aggregate depends on it, so it
 * depends on none of them; the seal use cases live in SealLifecycleService.
 */
@Injectable()
export class SealService implements OnApplicationShutdown {
  readonly barrier: Barrier;
  #unsealed = false;
  #initialized = false;
  #peerSubscription: Subscription | undefined;
  #storageType: Promise<string> | undefined;
  #cluster: { name: string; id: string } | undefined;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_OPTIONS) private readonly options: CoreSysOptions,
    private readonly repo: SealRepository,
    private readonly moduleRef: ModuleRef,
  ) {
    if (!(runtime.cipher instanceof Barrier))
      throw new Error('core-sys needs a Barrier as its runtime cipher');
    this.barrier = runtime.cipher;
  }

  /** True once unsealed: the keyring is loaded and requests are served. */
  isUnsealed(): boolean {
    return this.#unsealed;
  }

  assertUnsealed(): void {
    if (!this.#unsealed) throw sealedError();
  }

  async isInitialized(): Promise<boolean> {
    // Initialisation is never undone, so once seen it needs no further reads.
    if (!this.#initialized) this.#initialized = await this.repo.isInitialized();
    return this.#initialized;
  }

  markInitialized(): void {
    this.#initialized = true;
  }

  /** Installs the keyring and opens this replica; it then also answers peers' keyring requests. */
  unlock(keyring: KeyringData): void {
    this.barrier.load(keyring);
    this.#unsealed = true;
    this.#initialized = true;
    this.#peerSubscription ??= this.runtime.transport.serve(peerKeyring, PEER_QUEUE, async (req) =>
      this.sealKeyringFor(req),
    );
  }

  /** Wipes the keyring from memory and stops serving. */
  lock(): void {
    this.#unsealed = false;
    this.#peerSubscription?.unsubscribe();
    this.#peerSubscription = undefined;
    this.barrier.wipe();
  }

  /** Active keyring term, 0 when sealed. */
  activeTerm(): number {
    return this.barrier.sealed ? 0 : this.barrier.keyStatus().term;
  }

  /**
   * This replica's own answer to a keyring request from a cluster member (MAC over its one-time
   * key with the cluster secret): the keyring sealed to that key, or "sealed".
   */
  sealKeyringFor(req: ContractRequest<typeof coreBarrierKeyring>): SealedKeyring {
    if (
      !verifyKeyringRequestMac(this.options.clusterSecret, req.service, req.publicKey, req.nonce, req.mac)
    ) {
      throw new DomainError('permission_denied', 'permission denied');
    }
    if (!this.#unsealed) throw sealedError();
    const keyring = this.barrier.exportKeyring();
    try {
      return sealKeyringForRecipient(keyring, req.publicKey);
    } finally {
      for (const t of keyring.terms) t.key.fill(0);
    }
  }

  async state(): Promise<{ initialized: boolean; sealed: boolean }> {
    return { initialized: await this.isInitialized(), sealed: !this.#unsealed };
  }

  storageType(): Promise<string> {
    this.#storageType ??= this.repo.storageType();
    return this.#storageType;
  }

  /** Name and id given to the cluster at init; they never change. */
  async cluster(): Promise<{ name: string; id: string } | undefined> {
    if (!this.#cluster) {
      const row = await this.repo.load();
      if (row) this.#cluster = { name: row.clusterName, id: row.clusterId };
    }
    return this.#cluster;
  }

  async initStatus(): Promise<ResponseOf<typeof sysContracts.initStatus>> {
    return { kind: 'raw', body: { initialized: await this.isInitialized() } };
  }

  keyStatus(): ResponseOf<typeof sysContracts.keyStatus> {
    this.assertUnsealed();
    const status = this.barrier.keyStatus();
    return { kind: 'injected', data: { term: status.term, install_time: status.install_time } };
  }

  /** GET/HEAD sys/health from this replica's point of view (every replica is active). */
  async health(query: HealthQuery): Promise<ResponseOf<typeof sysContracts.health>> {
    const initialized = await this.isInitialized();
    const state = {
      initialized,
      sealed: !this.#unsealed,
      standby: false,
      performanceStandby: false,
      drSecondary: false,
    };
    const decision = decideHealthStatus(state, query);
    if (!decision.ok) return { kind: 'raw', status: decision.status, body: { errors: [] } };
    const cluster = initialized && this.#unsealed ? await this.cluster() : undefined;
    const body = healthBody({ ...state, now: this.runtime.clock(), version: SERVICE_VERSION, cluster });
    return { kind: 'raw', status: decision.status, body };
  }

  /**
   * Dev mode only (insecure by design): initialise with one share and unseal at boot, or, with
   * a persistent data directory, unseal with the key saved there by an earlier run.
   */
  devBootstrap(opts: DevBootstrapOptions = {}): Promise<DevBootstrapResult> {
    return this.moduleRef.get<DevBootstrapper>(DEV_BOOTSTRAPPER, { strict: false }).devBootstrap(opts);
  }

  onApplicationShutdown(): void {
    this.lock();
  }
}
