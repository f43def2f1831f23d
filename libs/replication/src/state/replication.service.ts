import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { coreWrapResponse, invalidRequest, type CallerContext } from '@coffer/contracts';
import type { Activation, ReplicationMode, ReplicationStatus } from '@coffer/contracts/replication';
import type { ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_OPTIONS, REPLICATION_RUNTIME, type ReplicationOptions } from '../replication.di';
import { ReplicaSink } from '../stream/replica-sink';
import { PromotionFold } from '../stream/promotion-fold';
import { ReplicationSupervisor } from '../stream/replication-supervisor';
import { StreamStatus } from '../stream/stream-status';
import { merkleRoot, totalWal, type SourceHead } from '../wal/merkle';
import { WalSource } from '../wal/wal-source';
import { activationAddress, redeemActivationToken, type ActivationRequest } from './activation-client';
import { decide, type ModeState, type PrimaryLink } from './replication-state.decider';
import { openActivation, sealActivation, SEALED_ACTIVATION_PREFIX } from './sealed-activation';
import { ReplicationStateService } from './replication-state.service';

/** how fresh the primary's last heartbeat must be for promote to trust it */
const PROOF_WINDOW_MS = 5_000;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Every position of `heads` is reached by `positions` (a secondary has what the primary said it had). */
export function caughtUp(positions: readonly SourceHead[], heads: readonly SourceHead[]): boolean {
  const at = new Map(positions.map((p) => [p.source, p.lastWal]));
  return heads.every((h) => h.lastWal === 0 || (at.get(h.source) ?? 0) >= h.lastWal);
}

/** The use cases of sys/replication/<mode>/* shared by DR and performance. */
@Injectable()
export class ReplicationService {
  private readonly logger = new Logger('Replication');

  constructor(
    private readonly states: ReplicationStateService,
    private readonly wal: WalSource,
    private readonly replica: ReplicaSink,
    private readonly live: StreamStatus,
    private readonly supervisor: ReplicationSupervisor,
    private readonly folds: PromotionFold,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(REPLICATION_OPTIONS) private readonly options: ReplicationOptions,
  ) {}

  async status(mode: ReplicationMode): Promise<ReplicationStatus> {
    const s = await this.states.loadPublic(mode);
    if (s.state === 'disabled') return { mode: 'disabled' };
    if (s.state === 'primary') {
      const heads = await this.wal.heads();
      return {
        mode: 'primary',
        cluster_id: s.clusterId ?? '',
        state: 'running',
        primary_cluster_addr: this.advertised(s),
        known_secondaries: s.secondaries.map((x) => x.id),
        last_wal: totalWal(heads),
        merkle_root: merkleRoot(heads),
        secondaries: s.secondaries.map((x) => {
          const live = this.live.secondary(mode, x.id);
          return {
            node_id: x.id,
            api_address: live?.apiAddr ?? '',
            cluster_address: live?.clusterAddr ?? '',
            connection_status: live?.connected ? 'connected' : 'disconnected',
            last_heartbeat: iso(live?.lastHeartbeat ?? null),
            last_remote_wal: totalWal(live?.acked ?? []),
          };
        }),
      };
    }
    const live = this.live.primary(mode);
    // A demoted primary follows no one yet: its own logs are its data.
    const positions = s.link ? await this.replica.positions(mode) : await this.wal.heads();
    return {
      mode: 'secondary',
      cluster_id: s.clusterId ?? '',
      state: !s.link ? 'idle' : live.connected ? 'stream-wals' : 'connecting',
      known_primary_cluster_addrs: s.knownPrimaryClusterAddrs,
      last_remote_wal: totalWal(positions),
      merkle_root: merkleRoot(positions),
      primary_cluster_addr: s.link?.primaryClusterAddr ?? '',
      secondary_id: s.link?.secondaryId ?? '',
      primaries: s.link
        ? [
            {
              api_address: s.link.primaryApiAddr,
              cluster_address: s.link.primaryClusterAddr,
              connection_status: live.connected ? 'connected' : 'disconnected',
              last_heartbeat: iso(live.lastHeartbeat),
            },
          ]
        : [],
    };
  }

  async primaryEnable(mode: ReplicationMode, primaryClusterAddr: string): Promise<void> {
    await this.states.command(mode, (s) => decide.primaryEnable(s, randomUUID(), primaryClusterAddr));
    await this.supervisor.refresh();
  }

  async primaryDemote(mode: ReplicationMode): Promise<void> {
    await this.states.command(mode, (s) => decide.primaryDemote(s));
    await this.supervisor.refresh();
  }

  async primaryDisable(mode: ReplicationMode): Promise<void> {
    await this.states.command(mode, (s) => decide.primaryDisable(s));
    await this.supervisor.refresh();
  }

  /**
   * An activation token: a fresh pre-shared key for the secondary `id`, and the activation
   * (replication set, cluster address, key) response-wrapped by core-sys in Vault's JWT format,
   * so the token names this cluster's API address, where the secondary unwraps it.
   */
  async secondaryToken(
    mode: ReplicationMode,
    body: { id: string; ttl: number; secondary_public_key: string },
    caller: CallerContext,
  ): Promise<Record<string, unknown>> {
    if (body.ttl < 1) throw invalidRequest('ttl must be at least one second');
    const psk = randomBytes(32).toString('base64');
    const expiresAtMs = this.runtime.clock().getTime() + body.ttl * 1000;
    const state = await this.states.command(mode, (s) => decide.secondaryToken(s, body.id, psk, expiresAtMs));
    await this.supervisor.refresh();
    const activation = {
      mode,
      cluster_id: state.clusterId ?? '',
      primary_cluster_addr: this.advertised(state),
      secondary_id: body.id,
      psk,
    };
    const creationPath = `sys/replication/${mode}/primary/secondary-token`;
    const envelope = (wrapInfo: Record<string, unknown>) => ({
      request_id: caller.requestId,
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: null,
      wrap_info: wrapInfo,
      warnings: null,
      auth: null,
    });
    if (body.secondary_public_key !== '') {
      // encrypted to the secondary instead of wrapped: the same answer, a token core-sys never saw
      const token = sealActivation(body.secondary_public_key, activation, this.options.apiAddr);
      return envelope({
        token,
        accessor: '',
        ttl: body.ttl,
        creation_time: this.runtime.clock().toISOString(),
        creation_path: creationPath,
      });
    }
    const wrapInfo = await this.runtime.transport.request(
      coreWrapResponse,
      {
        response: {
          request_id: caller.requestId,
          lease_id: '',
          renewable: false,
          lease_duration: 0,
          data: activation,
          wrap_info: null,
          warnings: null,
          auth: null,
        },
        ttl: body.ttl,
        creationPath,
        format: 'jwt',
      },
      { write: true },
    );
    return envelope(wrapInfo);
  }

  async revokeSecondary(mode: ReplicationMode, id: string): Promise<void> {
    await this.states.command(mode, (s) => decide.revokeSecondary(s, id));
    await this.supervisor.refresh();
  }

  /** An X25519 key pair for secondary_public_key (kept until the next one). */
  async generatePublicKey(mode: ReplicationMode): Promise<{ secondary_public_key: string }> {
    const pair = generateKeyPairSync('x25519');
    const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await this.states.command(mode, (s) => [
      { type: 'ReplicationKeyPairGenerated', data: { mode: s.mode, publicKey, privateKey } },
    ]);
    return { secondary_public_key: publicKey };
  }

  /** Redeems the token at the primary, wipes this mode's copy, then follows the primary. */
  async secondaryEnable(mode: ReplicationMode, req: ActivationRequest): Promise<void> {
    const current = await this.states.loadPublic(mode);
    decide.secondaryEnable(current, { ...blankLink });
    const link = await this.linkFrom(mode, req);
    await this.states.command(
      mode,
      (s) => decide.secondaryEnable(s, link),
      () => this.replica.wipe(mode),
    );
    await this.supervisor.refresh();
  }

  async secondaryDisable(mode: ReplicationMode): Promise<void> {
    await this.states.command(mode, (s) => decide.secondaryDisable(s));
    await this.supervisor.refresh();
  }

  /** A blank token clears the primary; otherwise the new primary's token is redeemed (no wipe). */
  async updatePrimary(mode: ReplicationMode, req: ActivationRequest): Promise<void> {
    const current = await this.states.loadPublic(mode);
    decide.updatePrimary(current, null);
    const link = req.token === '' ? null : await this.linkFrom(mode, req);
    await this.states.command(mode, (s) => decide.updatePrimary(s, link));
    await this.supervisor.refresh();
  }

  /**
   * Safety check: the secondary must be connected to its primary, have heard from it within the
   * last few seconds, and have applied everything the primary then said it had. Without that
   * proof (the primary is down or unreachable) only `force` promotes.
   */
  async promote(mode: ReplicationMode, primaryClusterAddr: string, force: boolean): Promise<void> {
    const current = await this.states.loadPublic(mode);
    decide.promote(current, primaryClusterAddr, force);
    if (!force) {
      const live = this.live.primary(mode);
      const positions = await this.replica.positions(mode);
      const recent =
        live.connected &&
        live.lastHeartbeat !== null &&
        this.runtime.clock().getTime() - live.lastHeartbeat.getTime() <= PROOF_WINDOW_MS;
      if (!recent || !caughtUp(positions, live.heads))
        throw invalidRequest(
          "cannot promote: unable to confirm that this secondary has the primary's latest WAL; use force=true to promote anyway (writes not yet replicated may be lost)",
        );
    }
    // the promotion fold (docs/replication.md): before the cluster takes writes as a primary, so
    // no write of its own lands on a replicated stream first; again once the stream stopped, for
    // what arrived meanwhile. A failure does not stop a disaster recovery: the supervisor retries.
    await this.foldReplicated(mode, 'before promoting');
    await this.states.command(mode, (s) => decide.promote(s, primaryClusterAddr, force));
    await this.supervisor.refresh();
    await this.foldReplicated(mode, 'after promoting');
  }

  private async foldReplicated(mode: ReplicationMode, when: string): Promise<void> {
    try {
      await this.folds.fold(mode);
    } catch (error) {
      this.logger.warn(
        `folding the replicated core-sys state ${when} failed (retried): ${error instanceof Error ? error.message : 'unknown'}`,
      );
    }
  }

  private async linkFrom(mode: ReplicationMode, req: ActivationRequest): Promise<PrimaryLink> {
    if (req.token.startsWith(SEALED_ACTIVATION_PREFIX)) {
      const { state } = await this.states.load(mode);
      if (!state.keyPair) throw invalidRequest('no key pair: call generate-public-key on this cluster first');
      const opened = openActivation(state.keyPair.privateKey, req.token);
      return this.linkOf(mode, opened.activation, req.primaryApiAddr || opened.primaryApiAddr);
    }
    const activation = await redeemActivationToken(req);
    return this.linkOf(
      mode,
      activation,
      req.primaryApiAddr !== '' ? req.primaryApiAddr : activationAddressOf(req.token),
    );
  }

  private linkOf(mode: ReplicationMode, activation: Activation, primaryApiAddr: string): PrimaryLink {
    if (activation.mode !== mode)
      throw invalidRequest(`the activation token is for ${activation.mode} replication, not ${mode}`);
    return {
      clusterId: activation.cluster_id,
      secondaryId: activation.secondary_id,
      primaryClusterAddr: activation.primary_cluster_addr,
      primaryApiAddr,
      psk: activation.psk,
    };
  }

  /** The cluster address secondaries are given: the enable's, else the configured one. */
  private advertised(s: ModeState): string {
    return s.primaryClusterAddr !== '' ? s.primaryClusterAddr : this.options.advertisedClusterAddr;
  }
}

const blankLink: PrimaryLink = {
  clusterId: '',
  secondaryId: '',
  primaryClusterAddr: '',
  primaryApiAddr: '',
  psk: '',
};

function activationAddressOf(token: string): string {
  try {
    return activationAddress(token);
  } catch {
    return '';
  }
}
