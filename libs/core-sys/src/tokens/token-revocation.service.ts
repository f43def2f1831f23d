import { Inject, Injectable } from '@nestjs/common';
import { invalidation, tokenRevoked } from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { LeaseService } from '../leases/lease.service';
import { decideRevoke, revocationOrder } from './token.decider';
import type { RevocationReason } from './token.events';
import { TokenEventLog } from './token.projection';
import { TokenRepository } from './token.repository';

export interface RevokedTokens {
  accessors: string[];
  tokenRefs: string[];
}

/**
 * Revocation: a token and its whole subtree (children first), or a token alone with its
 * children orphaned. Every token is revoked by an event on its own stream at the version it was
 * read at, so concurrent revocations (API calls, sweepers on several replicas) are idempotent.
 * Caches and per-token state elsewhere are told after commit, before the caller gets an answer.
 */
@Injectable()
export class TokenRevocationService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: TokenRepository,
    private readonly log: TokenEventLog,
    private readonly leases: LeaseService,
  ) {}

  /** Revokes the token and all its descendants, then broadcasts. Unknown tokens: nothing to do. */
  async revokeTree(accessor: string, reason: RevocationReason): Promise<RevokedTokens> {
    const revoked = await this.revokeTreeQuietly(accessor, reason);
    await this.announce(revoked);
    return revoked;
  }

  /** Revokes the token alone; its children become orphans (revoke-orphan). */
  async revokeOrphan(accessor: string): Promise<RevokedTokens> {
    for (const child of await this.repo.childrenOf(accessor)) await this.orphan(child);
    const one = await this.revokeOne(accessor, 'revoked');
    const revoked: RevokedTokens = one ? { accessors: [one.accessor], tokenRefs: [one.tokenRef] } : empty();
    await this.announce(revoked);
    return revoked;
  }

  /**
   * Revokes every token created under a path prefix, with their children: an auth method being
   * disabled logs out everyone who logged in through it (e.g. prefix "auth/userpass/").
   */
  async revokeByPathPrefix(prefix: string, namespace = ''): Promise<RevokedTokens> {
    const all = empty();
    for (const accessor of await this.repo.byPathPrefix(prefix, namespace))
      merge(all, await this.revokeTreeQuietly(accessor, 'revoked'));
    await this.announce(all);
    return all;
  }

  /** Every token of a namespace, with its children (wherever they live). */
  async revokeNamespace(namespace: string): Promise<RevokedTokens> {
    const all = empty();
    for (const accessor of await this.repo.byNamespace(namespace))
      merge(all, await this.revokeTreeQuietly(accessor, 'revoked'));
    await this.announce(all);
    return all;
  }

  private async revokeTreeQuietly(accessor: string, reason: RevocationReason): Promise<RevokedTokens> {
    const tree = await this.repo.tree(accessor);
    const revoked = empty();
    for (const a of revocationOrder(accessor, tree)) {
      const one = await this.revokeOne(a, a === accessor ? reason : 'parent_revoked');
      if (one) merge(revoked, { accessors: [one.accessor], tokenRefs: [one.tokenRef] });
    }
    return revoked;
  }

  private async revokeOne(
    accessor: string,
    reason: RevocationReason,
  ): Promise<{ accessor: string; tokenRef: string } | undefined> {
    return retryOnConflict(async () => {
      const current = await this.repo.byAccessor(accessor);
      if (!current) return undefined; // already revoked (by another request or replica)
      await this.log.append(accessor, current.version, [
        { type: 'TokenRevoked', data: decideRevoke(reason, this.now()) },
      ]);
      return { accessor, tokenRef: current.state.tokenRef };
    });
  }

  private async orphan(accessor: string): Promise<void> {
    await retryOnConflict(async () => {
      const current = await this.repo.byAccessor(accessor);
      if (!current || current.state.parentAccessor === null) return;
      await this.log.append(accessor, current.version, [
        { type: 'TokenOrphaned', data: { orphanedAt: this.now() } },
      ]);
    });
  }

  private async announce(revoked: RevokedTokens): Promise<void> {
    if (revoked.accessors.length === 0) return;
    // Vault's RevokeByToken: the leases created with these tokens become due (the lease manager revokes them).
    await this.leases.revokeForTokens(revoked.accessors);
    const { transport } = this.runtime;
    await transport.publish(invalidation, { kind: 'token', keys: revoked.accessors });
    await transport.publish(tokenRevoked, { accessors: revoked.accessors, tokenRefs: revoked.tokenRefs });
    await transport.flush();
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}

const empty = (): RevokedTokens => ({ accessors: [], tokenRefs: [] });

function merge(into: RevokedTokens, more: RevokedTokens): void {
  into.accessors.push(...more.accessors);
  into.tokenRefs.push(...more.tokenRefs);
}
