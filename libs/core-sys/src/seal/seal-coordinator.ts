import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  generateRecipientKeyPair,
  keyringRequestMac,
  openSealedKeyring,
  type KeyringData,
} from '@coffer/barrier';
import {
  coreBarrierKeyring,
  invalidation,
  isDomainError,
  sysContracts,
  type Contract,
  type ContractRequest,
  type ContractResponse,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { IntervalLoop } from '@coffer/scheduling';
import type { Subscription } from '@coffer/transport';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
import { CoreSysDb } from '../core-sys.table';
import { LEADER_QUEUE, leaderKeyring, peerKeyring, SERVICE_QUEUE } from './seal.contracts';
import { LEADER_SERVED, type LeaderServed } from './leader-served';
import { SealLeadership } from './seal-leadership';
import { SealLifecycleService } from './seal-lifecycle.service';
import { SealService } from './seal.service';

export interface SealCoordinatorSettings {
  leaderRetryMs: number;
  leaderHeartbeatMs: number;
  /** followers re-check the leader's keyring this often (missed broadcasts) */
  syncIntervalMs: number;
  keyringTimeoutMs: number;
}
export const SEAL_COORDINATOR_SETTINGS = Symbol('SEAL_COORDINATOR_SETTINGS');
export const DEFAULT_SEAL_COORDINATOR_SETTINGS: SealCoordinatorSettings = {
  leaderRetryMs: 1_000,
  leaderHeartbeatMs: 2_000,
  syncIntervalMs: 15_000,
  keyringTimeoutMs: 5_000,
};

type FetchResult = { kind: 'keyring'; keyring: KeyringData } | { kind: 'sealed' } | { kind: 'unavailable' };
type KeyringContract = Contract<typeof coreBarrierKeyring.request, typeof coreBarrierKeyring.response>;
type KeyringRequest = ContractRequest<typeof coreBarrierKeyring>;
type KeyringResponse = ContractResponse<typeof coreBarrierKeyring>;
const SEALED_CODES = new Set(['sealed', 'not_initialized']);
const KEYRING_REQUESTER = 'core-sys';

/**
 * Runs the multi-replica side of the seal: elects the leader (advisory lock), serves the
 * leader-only subjects there (init, unseal, seal, rotate, seal-status, the leader keyring),
 * keeps followers in step with the leader's keyring on every seal broadcast, and answers
 * engines' keyring requests with the leader's state whenever the leader is reachable.
 */
@Injectable()
export class SealCoordinator implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SealCoordinator');
  #leadership: SealLeadership | undefined;
  #leaderSubscriptions: Subscription[] = [];
  #broadcast: Subscription | undefined;
  #keyringService: Subscription | undefined;
  /** followers also sync on a timer, in case a seal broadcast was missed */
  readonly #syncLoop: IntervalLoop;
  #syncQueue: Promise<void> = Promise.resolve();
  #leaderChange: Promise<void> = Promise.resolve();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_OPTIONS) private readonly options: CoreSysOptions,
    @Inject(SEAL_COORDINATOR_SETTINGS) private readonly settings: SealCoordinatorSettings,
    private readonly seal: SealService,
    private readonly lifecycle: SealLifecycleService,
    private readonly db: CoreSysDb,
    @Inject(LEADER_SERVED) private readonly leaderServed: readonly LeaderServed[],
  ) {
    this.#syncLoop = new IntervalLoop({
      name: 'seal sync',
      intervalMs: settings.syncIntervalMs,
      run: () => this.sync(),
      onError: () => undefined, // sync() reports its own failures
    });
  }

  get isLeader(): boolean {
    return this.#leadership?.isLeader ?? false;
  }

  readonly #leadershipListeners: ((leader: boolean) => void)[] = [];

  /** Told once this replica has become or stopped being the leader (sys/ha-status's heartbeat). */
  onLeadershipChange(listener: (leader: boolean) => void): void {
    this.#leadershipListeners.push(listener);
  }

  async onApplicationBootstrap(): Promise<void> {
    const embedded = (await this.seal.storageType()) === 'pglite';
    this.#broadcast = this.runtime.transport.subscribe(invalidation, (payload) => {
      if (payload.kind === 'seal') void this.sync();
    });
    this.#keyringService = this.runtime.transport.serve(coreBarrierKeyring, SERVICE_QUEUE, (req) =>
      this.#engineKeyring(req),
    );
    this.#leadership = new SealLeadership(this.db, embedded, {
      retryMs: this.settings.leaderRetryMs,
      heartbeatMs: this.settings.leaderHeartbeatMs,
      onChange: (leader) => {
        this.#leaderChange = this.#leaderChange.then(() => this.#onLeadership(leader));
      },
      onError: (error) => this.logger.warn(`seal leadership: ${(error as Error).message}`),
    });
    await this.#leadership.start();
    await this.#leaderChange;
    if (!this.isLeader) await this.sync();
    this.#syncLoop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#syncLoop.stop();
    this.#broadcast?.unsubscribe();
    this.#keyringService?.unsubscribe();
    await this.#leadership?.stop();
    await this.#leaderChange;
    this.#unsubscribeLeader();
  }

  /** Followers: adopt the leader's keyring state (unlock, re-key after a rotation, or lock). */
  sync(): Promise<void> {
    const run = this.#syncQueue.then(() => this.#syncFromLeader());
    this.#syncQueue = run.catch(() => undefined);
    return run.catch((error: unknown) =>
      this.logger.warn(`keyring sync failed: ${(error as Error).message}`),
    );
  }

  async #syncFromLeader(): Promise<void> {
    if (this.isLeader) return;
    const result = await this.#fetchKeyring(leaderKeyring);
    if (this.isLeader) {
      if (result.kind === 'keyring') wipe(result.keyring);
      return;
    }
    switch (result.kind) {
      case 'keyring':
        try {
          if (!this.seal.isUnsealed() || this.seal.activeTerm() !== result.keyring.activeTerm) {
            this.seal.unlock(result.keyring);
          }
        } finally {
          wipe(result.keyring);
        }
        return;
      case 'sealed':
        if (this.seal.isUnsealed()) this.seal.lock();
        return;
      case 'unavailable':
        // No leader right now: keep the current state until one answers.
        return;
    }
  }

  /**
   * coreBarrierKeyring for engine services. A follower may lag behind a seal or a rotation for
   * a moment, so it relays the request to the leader (the MAC covers the engine's own key, so
   * the leader can check and answer it directly) and only answers itself when no leader is
   * reachable.
   */
  async #engineKeyring(req: KeyringRequest): Promise<KeyringResponse> {
    if (!this.isLeader) {
      try {
        return await this.runtime.transport.request(leaderKeyring, req, {
          timeoutMs: this.settings.keyringTimeoutMs,
        });
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'service_unavailable') throw error;
      }
    }
    return this.seal.sealKeyringFor(req);
  }

  async #onLeadership(leader: boolean): Promise<void> {
    if (!leader) {
      this.#unsubscribeLeader();
      this.lifecycle.resetProgress();
      for (const served of this.leaderServed) served.reset();
      this.logger.log(`${this.options.instanceId} is no longer the seal leader`);
      for (const listener of this.#leadershipListeners) listener(false);
      return;
    }
    // A new leader that is sealed (e.g. it just restarted) takes over the keyring its peers still
    // hold before answering, or followers would read its sealed state as a seal.
    if (!this.seal.isUnsealed()) {
      try {
        const result = await this.#fetchKeyring(peerKeyring);
        if (result.kind === 'keyring') {
          try {
            this.seal.unlock(result.keyring);
          } finally {
            wipe(result.keyring);
          }
        }
      } catch (error) {
        this.logger.warn(`could not take over the keyring from peers: ${(error as Error).message}`);
      }
    }
    if (!this.#leadership?.isLeader) return;
    this.#subscribeLeader();
    this.logger.log(`${this.options.instanceId} is the seal leader`);
    for (const listener of this.#leadershipListeners) listener(true);
  }

  #subscribeLeader(): void {
    const t = this.runtime.transport;
    const l = this.lifecycle;
    this.#unsubscribeLeader();
    this.#leaderSubscriptions = [
      t.serve(sysContracts.init, LEADER_QUEUE, (req) => l.init(req)),
      t.serve(sysContracts.sealStatus, LEADER_QUEUE, () => l.status()),
      t.serve(sysContracts.unseal, LEADER_QUEUE, (req) => l.unseal(req)),
      t.serve(sysContracts.seal, LEADER_QUEUE, () => l.sealNow()),
      t.serve(sysContracts.rotate, LEADER_QUEUE, () => l.rotate()),
      t.serve(leaderKeyring, LEADER_QUEUE, async (req) => this.seal.sealKeyringFor(req)),
      ...this.leaderServed.flatMap((served) => served.serveOnLeader(t, LEADER_QUEUE)),
    ];
  }

  #unsubscribeLeader(): void {
    for (const s of this.#leaderSubscriptions) s.unsubscribe();
    this.#leaderSubscriptions = [];
  }

  async #fetchKeyring(contract: KeyringContract): Promise<FetchResult> {
    const pair = generateRecipientKeyPair();
    const nonce = randomBytes(16).toString('base64url');
    const mac = keyringRequestMac(this.options.clusterSecret, KEYRING_REQUESTER, pair.publicKey, nonce);
    try {
      const response = await this.runtime.transport.request(
        contract,
        { service: KEYRING_REQUESTER, publicKey: pair.publicKey, nonce, mac },
        { timeoutMs: this.settings.keyringTimeoutMs },
      );
      return { kind: 'keyring', keyring: openSealedKeyring(pair.privateKey, response) };
    } catch (error) {
      if (isDomainError(error) && SEALED_CODES.has(error.code)) return { kind: 'sealed' };
      if (isDomainError(error) && error.code === 'service_unavailable') return { kind: 'unavailable' };
      throw error;
    }
  }
}

function wipe(keyring: KeyringData): void {
  for (const t of keyring.terms) t.key.fill(0);
}
