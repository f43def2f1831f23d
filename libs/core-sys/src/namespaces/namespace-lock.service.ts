import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { invalidation } from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { SealService } from '../seal/seal.service';
import { decideLock, decideUnlock, lockTarget } from './namespace-lock.decider';
import { NamespaceEventLog } from './namespace.projection';
import { NamespaceRepository } from './namespace.repository';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An unlock key: 24 random base62 characters (kept only as a hash). */
function newUnlockKey(): string {
  let key = '';
  for (let i = 0; i < 24; i++) key += BASE62[randomInt(BASE62.length)];
  return key;
}

/** sys/namespaces/api-lock/lock|unlock, and the locked paths the gateways enforce. */
@Injectable()
export class NamespaceLockService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: NamespaceRepository,
    private readonly log: NamespaceEventLog,
    private readonly seal: SealService,
  ) {}

  async lock(namespace: string, subpath: string): Promise<{ data: { unlock_key: string } }> {
    this.seal.assertUnsealed();
    const unlockKey = newUnlockKey();
    await retryOnConflict(async () => {
      const { tree, revision } = await this.repo.snapshot();
      await this.log.append(undefined, revision, [
        decideLock(lockTarget(tree, namespace, subpath), unlockKey),
      ]);
    });
    await this.#announce();
    return { data: { unlock_key: unlockKey } };
  }

  async unlock(
    namespace: string,
    subpath: string,
    unlockKey: string,
    root: boolean,
  ): Promise<Record<string, never>> {
    this.seal.assertUnsealed();
    await retryOnConflict(async () => {
      const { tree, revision } = await this.repo.snapshot();
      const target = lockTarget(tree, namespace, subpath);
      await this.log.append(undefined, revision, [decideUnlock({ target, tree, unlockKey, root })]);
    });
    await this.#announce();
    return {};
  }

  /** The locked namespaces (full paths), for the gateways. */
  async locked(): Promise<{ locked: string[] }> {
    const { tree } = await this.repo.snapshot();
    return { locked: tree.filter((n) => n.unlockKeyHash !== null).map((n) => n.path) };
  }

  /** Gateways re-read the locks with the mount table. */
  async #announce(): Promise<void> {
    await this.runtime.transport.publish(invalidation, { kind: 'mounts', keys: [] });
  }
}
