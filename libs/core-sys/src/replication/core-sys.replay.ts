import { Logger } from '@nestjs/common';
import { invalidation, mountDisabled } from '@coffer/contracts';
import type { z } from 'zod';
import { replicaLogSchemaOf } from '@coffer/contracts/replication';
import {
  noProjection,
  replayable,
  replicaEndpointProvider,
  type AnyDb,
  type AppendedOf,
  type Projection,
  type ReplicaEndpointSpec,
  type ReplayContext,
  type Replayable,
  type ServiceAggregate,
  type ServiceRuntime,
} from '@coffer/event-store';
import { CORE_SYS_LOGS } from '../core-sys.events';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import {
  MOUNTS_LOG,
  MOUNTS_STREAM,
  type MOUNT_EVENT_TYPES,
  type mountDisabledV1,
} from '../mounts/mounts.events';
import { MountsProjection } from '../mounts/mounts.projection';
import { NAMESPACE_LOG, NAMESPACES_STREAM } from '../namespaces/namespace.events';
import { NamespaceProjection } from '../namespaces/namespace.projection';
import { POLICY_LOG } from '../policies/policy.events';
import { PolicyProjection } from '../policies/policy.projection';
import { SENTINEL_POLICY_LOG, type SentinelPolicyKey } from '../sentinel-policies/sentinel-policy.events';
import { SentinelPolicyProjection } from '../sentinel-policies/sentinel-policy.projection';
import { ApproleRoleProjection, ApproleSecretIdProjection } from '../approle/approle.projection';
import { ApproleSalt } from '../approle/approle-salt';
import { GroupProjection } from '../identity/group.projection';
import { IdentityProjection } from '../identity/identity.projection';
import { LeaseProjection } from '../leases/lease.projection';
import { PasswordPolicyProjection } from '../password-policies/password-policy.projection';
import { TokenRoleProjection } from '../token-roles/token-role.projection';
import { TokenProjection } from '../tokens/token.projection';
import { UserpassProjection } from '../userpass/userpass.projection';
import {
  AUTH_REPLAYED_LOGS,
  authReplayables,
  ownStreamVersion,
  wipeReplicatedAuth,
  type AuthChange,
  type AuthReplayDeps,
} from './core-sys-auth.replay';
import { resetFold } from './replica-fold.repository';
import { ReplicaSealedRepository } from './replica-sealed.repository';

/**
 * Where a secondary keeps the primary's core-sys rows. core-sys keeps writing locally on a
 * secondary (its seal, generate-root, its own tokens and leases on a performance secondary), so
 * the primary's WAL indexes cannot go into its own log: they go verbatim into this schema's
 * event log (hash-chained, its head the position) and only the read models are shared.
 */
export const CORE_SYS_REPLICA_SCHEMA = replicaLogSchemaOf('core_sys');

/** The built-in mounts every cluster has: a wipe keeps them (the primary's replace them by path). */
const BUILTIN_TYPES = ['system', 'token', 'identity', 'cubbyhole'];

type MountEvents = typeof MOUNT_EVENT_TYPES;

/** The caches a batch may have made stale: the gateway's, and core-sys's AppRole salts. */
type ChangedKind = 'mounts' | 'policy' | AuthChange;

export interface CoreSysReplayDeps extends AuthReplayDeps {
  db: CoreSysDb;
  mounts: MountsProjection;
  namespaces: NamespaceProjection;
  policies: PolicyProjection;
  sentinel: SentinelPolicyProjection;
  publish: (kind: Exclude<ChangedKind, 'approle-salt'>) => Promise<void>;
  approleSalt: Pick<ApproleSalt, 'forget'>;
  publishMountDisabled: (mount: z.input<typeof mountDisabled.payload>) => Promise<void>;
}

/**
 * The mode of the batch being projected and what it changed (for the mount rule and the
 * gateway's caches): the replication service sends one batch at a time and waits for it.
 */
interface Batch {
  mode: ReplayContext['mode'];
  changed: Set<ChangedKind>;
  /** mounts the primary disabled, told to this performance secondary's services */
  disabled: Array<z.output<typeof mountDisabledV1>>;
}

/**
 * The primary's mount table on this cluster (Vault's rules): a performance secondary leaves out
 * the primary's local mounts (`local: true` stays on its cluster) and keeps its own; a DR
 * secondary takes every mount. A primary's mount at a path this cluster also has (the built-ins,
 * a dev server's `secret/`) replaces it, since the replicated data is keyed by the primary's
 * uuid. The revision stays this cluster's own (the version of its own `mounts/table` stream),
 * so a local mount change still appends at the version it read.
 */
function replicatedMounts(d: CoreSysReplayDeps, batch: Batch): Projection<MountEvents, void, void> {
  return {
    async apply(trx, events) {
      const db = d.db.of(trx as CoreSysTrx);
      const kept: AppendedOf<MountEvents>[] = [];
      for (const e of events) {
        if (e.type === 'MountEnabled' || e.type === 'AuthMethodEnabled') {
          if (e.data.local && batch.mode === 'performance') continue;
          await db
            .deleteFrom('mounts')
            .where((w) =>
              w.or([
                w.and([w('path', '=', e.data.path), w('namespace', '=', e.data.namespace ?? '')]),
                w('uuid', '=', e.data.uuid),
              ]),
            )
            .execute();
        }
        // a performance secondary's services purge what they hold of it, as the primary's did
        // (a DR secondary runs no such side effect: it replays the primary's purges)
        if ((e.type === 'MountDisabled' || e.type === 'AuthMethodDisabled') && batch.mode === 'performance')
          batch.disabled.push(e.data);
        kept.push(e);
      }
      if (kept.length > 0) await d.mounts.apply(trx as CoreSysTrx, kept);
      const own = await ownStreamVersion(d.db, trx as CoreSysTrx, MOUNTS_STREAM);
      await db.updateTable('mount_table_revision').set({ revision: own }).where('id', '=', 1).execute();
      batch.changed.add('mounts');
    },
  };
}

/** The namespace tree likewise, its revision this cluster's own. */
function replicatedNamespaces(
  d: CoreSysReplayDeps,
  batch: Batch,
): Projection<typeof NAMESPACE_LOG.table, void, void> {
  return {
    async apply(trx, events) {
      await d.namespaces.apply(trx as CoreSysTrx, events);
      const own = await ownStreamVersion(d.db, trx as CoreSysTrx, NAMESPACES_STREAM);
      await d.db
        .of(trx as CoreSysTrx)
        .updateTable('namespace_tree_revision')
        .set({ revision: own })
        .where('id', '=', 1)
        .execute();
      batch.changed.add('mounts');
    },
  };
}

/** A replayable that records the batch's mode before its projection runs. */
function withMode(item: Replayable, batch: Batch): Replayable {
  return {
    ...item,
    run: (trx, events, ctx) => {
      batch.mode = ctx.mode;
      return item.run(trx, events, ctx);
    },
  };
}

/** An aggregate whose rows this cluster keeps (verified, in the replica log) but does not project. */
const notProjected = (log: ServiceAggregate & Parameters<typeof replayable>[0]): Replayable =>
  replayable(log, noProjection(), () => null);

/**
 * How a secondary's core-sys replays the primary's core-sys log: mounts and auth methods, ACL
 * and Sentinel (RGP/EGP) policies and namespaces go into its read models with core-sys's own
 * projections, and so do identity, auth backends' data, token roles, password policies and (DR)
 * tokens, leases and wrapped responses (core-sys-auth.replay.ts); the plugin catalogue, audit
 * devices and the history key are kept verified in the replica log but not projected
 * (docs/replication.md, "core-sys on a secondary").
 */
export function coreSysReplica(d: CoreSysReplayDeps): ReplicaEndpointSpec {
  const batch: Batch = { mode: 'dr', changed: new Set(), disabled: [] };
  const { changed } = batch;
  const projected: Replayable[] = [
    replayable(MOUNTS_LOG, replicatedMounts(d, batch), () => undefined),
    replayable(NAMESPACE_LOG, replicatedNamespaces(d, batch), () => undefined),
    replayable(POLICY_LOG, d.policies, (_trx, stream) => {
      changed.add('policy');
      return stream.slice('policy/acl/'.length);
    }),
    replayable(SENTINEL_POLICY_LOG, d.sentinel, (_trx, stream) => {
      changed.add('policy');
      const [, kind, ...name] = stream.split('/');
      const key: SentinelPolicyKey = { kind: kind === 'egp' ? 'egp' : 'rgp', name: name.join('/') };
      return key;
    }),
    ...authReplayables(d, (kind) => changed.add(kind)),
  ].map((item) => withMode(item, batch));
  const projectedLogs = new Set<unknown>([
    MOUNTS_LOG,
    NAMESPACE_LOG,
    POLICY_LOG,
    SENTINEL_POLICY_LOG,
    ...AUTH_REPLAYED_LOGS,
  ]);
  const logger = new Logger('CoreSysReplica');
  return {
    logSchema: CORE_SYS_REPLICA_SCHEMA,
    replayables: [
      ...projected,
      ...CORE_SYS_LOGS.filter((log) => !projectedLogs.has(log)).map((log) =>
        notProjected(log as Parameters<typeof notProjected>[0]),
      ),
    ],
    exportAttachments: () => Promise.resolve([]),
    // the gateway caches the mount table and policies: tell it once a batch changed them
    onChanged: () => {
      for (const kind of changed)
        if (kind === 'approle-salt') d.approleSalt.forget();
        else
          d.publish(kind).catch((error: unknown) =>
            logger.warn(`invalidating ${kind} failed: ${error instanceof Error ? error.message : 'unknown'}`),
          );
      changed.clear();
      for (const mount of batch.disabled.splice(0))
        d.publishMountDisabled({ ...mount, replicated: true }).catch((error: unknown) =>
          logger.warn(
            `telling the services that ${mount.path} was disabled failed: ${error instanceof Error ? error.message : 'unknown'}`,
          ),
        );
    },
    wipe: async (db: AnyDb, wiped) => {
      await wipeReplicated(new CoreSysDb({ db, schema: d.db.schema }), wiped);
      for (const kind of ['mounts', 'policy', 'token', 'entity'] as const) changed.add(kind);
    },
  };
}

/**
 * secondary/enable and re-sync alike (either wipe scope: core-sys's own log holds the seal and the
 * keyring, never to be dropped): the replicated read models are cleared, this cluster's own state
 * stays (seal, keyring, its built-in mounts, a performance secondary's local mounts, and every
 * token, user, entity... whose stream it wrote to its own log: see wipeReplicatedAuth).
 */
async function wipeReplicated(db: CoreSysDb, wiped: ReplayContext['mode']): Promise<void> {
  await db.pool.transaction().execute(async (trx) => {
    let mounts = db.of(trx).deleteFrom('mounts').where('type', 'not in', BUILTIN_TYPES);
    if (wiped === 'performance') mounts = mounts.where('local', '=', false);
    await mounts.execute();
    await db.of(trx).deleteFrom('acl_policies').where('name', 'not in', ['default', 'root']).execute();
    await db.of(trx).deleteFrom('sentinel_policies').execute();
    await db.of(trx).deleteFrom('namespaces').execute();
    await wipeReplicatedAuth(db, trx);
    await resetFold(db, trx);
  });
}

/** core-sys's replica endpoint, for its module's providers. */
export const coreSysReplicaProvider = (runtime: ServiceRuntime) =>
  replicaEndpointProvider(
    runtime,
    [
      CoreSysDb,
      MountsProjection,
      NamespaceProjection,
      PolicyProjection,
      SentinelPolicyProjection,
      IdentityProjection,
      GroupProjection,
      UserpassProjection,
      ApproleRoleProjection,
      ApproleSecretIdProjection,
      TokenRoleProjection,
      PasswordPolicyProjection,
      TokenProjection,
      LeaseProjection,
      ReplicaSealedRepository,
      ApproleSalt,
    ],
    (
      db: CoreSysDb,
      mounts: MountsProjection,
      namespaces: NamespaceProjection,
      policies: PolicyProjection,
      sentinel: SentinelPolicyProjection,
      identity: IdentityProjection,
      groups: GroupProjection,
      userpass: UserpassProjection,
      approleRoles: ApproleRoleProjection,
      approleSecretIds: ApproleSecretIdProjection,
      tokenRoles: TokenRoleProjection,
      passwordPolicies: PasswordPolicyProjection,
      tokens: TokenProjection,
      leases: LeaseProjection,
      sealed: ReplicaSealedRepository,
      approleSalt: ApproleSalt,
    ) =>
      coreSysReplica({
        db,
        mounts,
        namespaces,
        policies,
        sentinel,
        identity,
        groups,
        userpass,
        approleRoles,
        approleSecretIds,
        tokenRoles,
        passwordPolicies,
        tokens,
        leases,
        sealed,
        approleSalt,
        publish: (kind) => runtime.transport.publish(invalidation, { kind, keys: [] }),
        publishMountDisabled: (mount) => runtime.transport.publish(mountDisabled, mount),
      }),
  );
