import { randomBytes } from 'node:crypto';
import { coreBarrierKeyring, invalidation, isDomainError } from '@coffer/contracts';
import { IntervalLoop } from '@coffer/scheduling';
import type { Subscription, Transport } from '@coffer/transport';
import { Barrier } from './barrier';
import { generateRecipientKeyPair, keyringRequestMac, openSealedKeyring } from './keyring-transport';
import type { KeyringData } from './barrier-types';

export interface KeyringClientOptions {
  transport: Transport;
  /** shared by every service of the cluster; proves this service may receive the keyring */
  clusterSecret: string | Uint8Array;
  /** this service's name, e.g. "kv" */
  service: string;
  /**
   * Periodic re-fetch (also while sealed), so a missed seal/unseal broadcast or a keyring
   * rotation is picked up eventually. 0 disables. Default 30 s.
   */
  refreshIntervalMs?: number;
  /** per keyring request; default 5 s */
  requestTimeoutMs?: number;
  /** failures of background refreshes (the messages carry no secrets) */
  onError?: (error: unknown) => void;
}

type FetchResult = { kind: 'keyring'; keyring: KeyringData } | { kind: 'sealed' } | { kind: 'unavailable' };

const SEALED_CODES = new Set(['sealed', 'not_initialized']);

/**
 * Keeps an engine service's barrier in step with core-sys: fetches the keyring (sealed to a fresh
 * X25519 key per request), wipes it on every seal-state broadcast and fetches again (the broadcast
 * is sent on seal and on unseal). `barrier` is the service's Cipher.
 */
export class KeyringClient {
  readonly barrier = new Barrier();
  readonly #opts: Required<Omit<KeyringClientOptions, 'onError'>> & Pick<KeyringClientOptions, 'onError'>;
  #subscription: Subscription | undefined;
  readonly #refreshLoop: IntervalLoop;
  /** bumped by every seal broadcast: a fetch started before it must not reinstall its keyring */
  #generation = 0;
  #stopped = false;
  /** the fetch the last seal broadcast started (what a fetch it overtook answers) */
  #latest: Promise<boolean> | undefined;

  constructor(opts: KeyringClientOptions) {
    this.#opts = { refreshIntervalMs: 30_000, requestTimeoutMs: 5_000, ...opts };
    this.#refreshLoop = new IntervalLoop({
      name: 'keyring refresh',
      intervalMs: this.#opts.refreshIntervalMs,
      run: () => (this.#stopped ? Promise.resolve() : this.refresh()),
      onError: (error) => this.#report(error),
    });
  }

  /**
   * Subscribes to seal broadcasts, then fetches the keyring once. Sealed or unreachable core-sys
   * leaves the barrier sealed without failing; any other error (e.g. a wrong cluster secret)
   * is a misconfiguration and rejects.
   */
  async start(): Promise<void> {
    this.#stopped = false;
    this.#subscription = this.#opts.transport.subscribe(invalidation, (payload) => {
      if (payload.kind === 'seal') this.#onSealChanged();
    });
    try {
      await this.refresh();
    } catch (error) {
      this.stop();
      throw error;
    }
    this.#refreshLoop.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    void this.#refreshLoop.stop();
    this.barrier.wipe();
  }

  /** Fetches the keyring now; resolves to whether the barrier is unsealed afterwards. */
  async refresh(): Promise<boolean> {
    const generation = this.#generation;
    const result = await this.#fetch();
    if (generation !== this.#generation || this.#stopped) {
      if (result.kind === 'keyring') wipeKeyring(result.keyring);
      // a seal broadcast came meanwhile and started a fetch of its own: that one decides (its
      // answer, not the barrier it has just wiped; dev start-up asks right after its unseal)
      const newer = this.#latest;
      return !this.#stopped && newer !== undefined ? newer : !this.barrier.sealed;
    }
    switch (result.kind) {
      case 'keyring':
        this.barrier.load(result.keyring);
        wipeKeyring(result.keyring);
        break;
      case 'sealed':
        this.barrier.wipe();
        break;
      case 'unavailable':
        break;
    }
    return !this.barrier.sealed;
  }

  #onSealChanged(): void {
    this.#generation += 1;
    this.barrier.wipe();
    this.#background();
  }

  #background(): void {
    if (this.#stopped) return;
    const latest = this.refresh();
    this.#latest = latest.catch(() => !this.barrier.sealed);
    latest.catch((error: unknown) => this.#report(error));
  }

  #report(error: unknown): void {
    if (this.#opts.onError) {
      this.#opts.onError(error);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    console.warn(`[keyring-client:${this.#opts.service}] keyring refresh failed: ${message}`);
  }

  async #fetch(): Promise<FetchResult> {
    const { transport, clusterSecret, service, requestTimeoutMs } = this.#opts;
    const pair = generateRecipientKeyPair();
    const nonce = randomBytes(16).toString('base64url');
    const mac = keyringRequestMac(clusterSecret, service, pair.publicKey, nonce);
    try {
      const response = await transport.request(
        coreBarrierKeyring,
        { service, publicKey: pair.publicKey, nonce, mac },
        { timeoutMs: requestTimeoutMs },
      );
      return { kind: 'keyring', keyring: openSealedKeyring(pair.privateKey, response) };
    } catch (error) {
      if (isDomainError(error) && SEALED_CODES.has(error.code)) return { kind: 'sealed' };
      if (isDomainError(error) && error.code === 'service_unavailable') return { kind: 'unavailable' };
      throw error;
    }
  }
}

function wipeKeyring(keyring: KeyringData): void {
  for (const t of keyring.terms) t.key.fill(0);
}
