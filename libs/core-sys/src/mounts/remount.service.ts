import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  isDomainError,
  notFound,
  type ResponseOf,
  type SysRemountBody,
  sysContracts,
} from '@coffer/contracts';
import { IntervalLoop, runJob } from '@coffer/scheduling';
import { LeaseService } from '../leases/lease.service';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { SealCoordinator } from '../seal/seal-coordinator';
import { SealService } from '../seal/seal.service';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { MountMigrationsRepository } from './mount-migrations.repository';
import { MountsService } from './mounts.service';
import {
  decideRemountFinish,
  decideRemountStart,
  planOf,
  remountFailed,
  type RemountPlan,
} from './remount.decider';

/** How often the seal leader looks for moves whose process died, and how old they must be. */
const RESUME_INTERVAL_MS = 30_000;
const RESUME_AFTER_MS = 60_000;

const QUEUED_WARNING =
  "Mount move has been queued. Progress will be reported in Vault's server log, tagged with the returned migration_id";

/**
 * sys/remount: answers a migration id once the move is decided and the mount tainted, then
 * finishes in the background as Vault does (revoke the mount's leases, or the tokens of an auth
 * method, then change the mount table). The status lives in the read model, so any replica
 * answers sys/remount/status.
 */
@Injectable()
export class RemountService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('mounts.migration');
  readonly #running = new Set<Promise<void>>();
  /** migration ids this process is finishing */
  readonly #finishing = new Set<string>();
  readonly #resumeLoop = new IntervalLoop({
    name: 'mount migration resume',
    intervalMs: RESUME_INTERVAL_MS,
    run: () => this.resumeInterrupted(RESUME_AFTER_MS),
    onError: (error) => this.#logger.warn(`resuming mount moves failed: ${(error as Error).message}`),
  });

  constructor(
    private readonly mounts: MountsService,
    private readonly migrations: MountMigrationsRepository,
    private readonly seal: SealService,
    @Inject(LeaseService) private readonly leases: Pick<LeaseService, 'revokeMountLeasesNow'>,
    @Inject(TokenRevocationService)
    private readonly revocation: Pick<TokenRevocationService, 'revokeByPathPrefix'>,
    @Inject(NamespaceRepository) private readonly namespaces: Pick<NamespaceRepository, 'snapshot'>,
    @Inject(SealCoordinator) private readonly coordinator: Pick<SealCoordinator, 'isLeader'>,
  ) {}

  onApplicationBootstrap(): void {
    this.#resumeLoop.start();
  }

  async remount(body: SysRemountBody, namespace: string): Promise<ResponseOf<typeof sysContracts.remount>> {
    this.seal.assertUnsealed();
    const live = await this.#liveNamespaces();
    const migrationId = randomUUID();
    let plan: RemountPlan | undefined;
    await this.mounts.decideOnTable((table) => {
      const start = decideRemountStart(table, live, namespace, body, migrationId);
      plan = start.plan;
      return start.event;
    });
    if (plan) this.#track(plan);
    return { kind: 'injected', data: { migration_id: migrationId }, warnings: [QUEUED_WARNING] };
  }

  async status(migrationId: string): Promise<ResponseOf<typeof sysContracts.remountStatus>> {
    this.seal.assertUnsealed();
    const info = await this.migrations.find(migrationId);
    if (!info) throw notFound();
    return { data: info };
  }

  /** Moves still running finish (or fail) before the process stops. */
  async onApplicationShutdown(): Promise<void> {
    await this.#resumeLoop.stop();
    await Promise.allSettled([...this.#running]);
  }

  /**
   * On the seal leader: finishes the moves started at least `olderThanMs` ago that no process of
   * ours is finishing (the replica that started them died). Finishing twice is harmless: the
   * second finds the mount no longer moving and records nothing.
   */
  async resumeInterrupted(olderThanMs: number): Promise<void> {
    if (!this.coordinator.isLeader || !this.seal.isUnsealed()) return;
    const before = new Date(Date.now() - olderThanMs);
    for (const started of await this.migrations.inProgressSince(before)) {
      if (this.#finishing.has(started.migrationId)) continue;
      this.#logger.log(`resuming mount move ${started.migrationId}`);
      this.#track(planOf(started));
    }
    await Promise.allSettled([...this.#running]);
  }

  #track(plan: RemountPlan): void {
    this.#finishing.add(plan.migrationId);
    const move = this.#finish(plan);
    this.#running.add(move);
    void move.finally(() => {
      this.#running.delete(move);
      this.#finishing.delete(plan.migrationId);
    });
  }

  async #finish(plan: RemountPlan): Promise<void> {
    const tag = { migration_id: plan.migrationId, from: plan.source, to: plan.target };
    try {
      await runJob('mount migration', async () => {
        this.#logger.log(`starting to revoke leases and update the mount table ${JSON.stringify(tag)}`);
        await this.leases.revokeMountLeasesNow(plan.uuid);
        if (plan.kind === 'auth')
          await this.revocation.revokeByPathPrefix(plan.source.mountPath, plan.source.namespace);
        const live = await this.#liveNamespaces();
        const [event] = await this.mounts.decideOnTable((table) => decideRemountFinish(table, live, plan));
        if (event?.type === 'MountMigrationFailed')
          this.#logger.warn(`remount failed: ${event.data.reason} ${JSON.stringify(tag)}`);
        else this.#logger.log(`completed mount move operations ${JSON.stringify(tag)}`);
      });
    } catch (error) {
      const reason = isDomainError(error) ? error.message : 'internal error';
      this.#logger.error(`remount failed: ${reason} ${JSON.stringify(tag)}`);
      await this.mounts
        .decideOnTable((table) =>
          table.some((m) => m.uuid === plan.uuid) ? remountFailed(plan, reason) : undefined,
        )
        .catch((e: unknown) => this.#logger.error(`setting the migration status failed: ${String(e)}`));
    }
  }

  async #liveNamespaces(): Promise<string[]> {
    const { tree } = await this.namespaces.snapshot();
    return tree.filter((n) => !n.deleting).map((n) => n.path);
  }
}
