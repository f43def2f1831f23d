import { createHash } from 'node:crypto';
import type { ReplicaFoldEvent } from '@coffer/contracts/replication';
import { APPROLE_ROLE_LOG, APPROLE_SALT_LOG, APPROLE_SECRET_ID_LOG } from '../approle/approle.events';
import { GROUP_LOG } from '../identity/group.events';
import { IDENTITY_LOG } from '../identity/identity.events';
import { LEASE_LOG } from '../leases/lease.events';
import { isAuthPath, type MountRecord } from '../mounts/mount.model';
import { evolveMounts } from '../mounts/mounts.decider';
import type { MountEvent } from '../mounts/mounts.events';
import { NAMESPACE_LOG } from '../namespaces/namespace.events';
import { PASSWORD_POLICY_LOG } from '../password-policies/password-policy.events';
import { POLICY_LOG } from '../policies/policy.events';
import { SENTINEL_POLICY_LOG } from '../sentinel-policies/sentinel-policy.events';
import { TOKEN_ROLE_LOG } from '../token-roles/token-role.events';
import {
  inheritedTokenSaltStream,
  TOKEN_LOG,
  TOKEN_SALT_LOG,
  TOKEN_SALT_STREAM,
} from '../tokens/token.events';
import { USERPASS_LOG } from '../userpass/userpass.events';
import { WRAPPING_LOG } from '../wrapping/wrapping.events';

type Mode = 'dr' | 'performance';

/**
 * Which replicated streams the fold appends to this cluster's own log: those core-sys projected
 * from the replica log (core-sys.replay.ts), by the same rules. Every mode: policies, namespaces,
 * identity, token roles, password policies, and the auth backends' data of the mounts in the
 * table (a performance secondary left out the primary's local ones); DR: also tokens, leases and
 * wrapped responses, and the token salts that hash them (asInheritedSalt). The mount table is
 * folded as a whole (mountTableFold); the plugin catalogue, audit devices and the history key are
 * not (they were not served).
 */
type FoldRule = { kind: 'every-mode' } | { kind: 'dr-only' } | { kind: 'mount-keyed'; prefix: string };

const rules = new Map<string, FoldRule>();
const rule = (logs: ReadonlyArray<{ eventTypes: ReadonlyArray<{ name: string }> }>, r: FoldRule) => {
  for (const log of logs) for (const t of log.eventTypes) rules.set(t.name, r);
};
rule(
  [
    POLICY_LOG,
    SENTINEL_POLICY_LOG,
    NAMESPACE_LOG,
    IDENTITY_LOG,
    GROUP_LOG,
    TOKEN_ROLE_LOG,
    PASSWORD_POLICY_LOG,
  ],
  { kind: 'every-mode' },
);
rule([TOKEN_LOG, LEASE_LOG, WRAPPING_LOG, TOKEN_SALT_LOG], { kind: 'dr-only' });
rule([USERPASS_LOG], { kind: 'mount-keyed', prefix: 'userpass-user/' });
rule([APPROLE_ROLE_LOG], { kind: 'mount-keyed', prefix: 'approle-role/' });
rule([APPROLE_SECRET_ID_LOG], { kind: 'mount-keyed', prefix: 'approle-secret-id/' });
rule([APPROLE_SALT_LOG], { kind: 'mount-keyed', prefix: 'approle-salt/' });

/** Whether the fold appends this replicated event (`mounts`: the uuids of the served mount table). */
export function foldable(
  e: Pick<ReplicaFoldEvent, 'type' | 'stream'>,
  mode: Mode,
  mounts: ReadonlySet<string>,
): boolean {
  const r = rules.get(e.type);
  if (!r) return false;
  if (r.kind === 'every-mode') return true;
  if (r.kind === 'dr-only') return mode === 'dr';
  if (mode === 'dr') return true;
  const uuid = e.stream.slice(r.prefix.length).split('/')[0] ?? '';
  return mounts.has(uuid);
}

/**
 * The former primary's own token salt goes to a stream of its own in this cluster's log (its
 * `token-salt` stream is this cluster's own salt), named by the salt's fingerprint so folding it
 * again finds it: the former primary's tokens, folded with it, are looked up under it here and on
 * the DR secondaries that replay this log. A salt it inherited itself keeps its stream.
 */
export function asInheritedSalt(e: ReplicaFoldEvent): ReplicaFoldEvent {
  if (e.stream !== TOKEN_SALT_STREAM) return e;
  const salt = (e.data as { salt?: unknown } | null)?.salt;
  const fingerprint = createHash('sha256').update(String(salt)).digest('hex').slice(0, 32);
  return { ...e, stream: inheritedTokenSaltStream(fingerprint), streamVersion: 1 };
}

/** Keys in a fixed order, so two records compare by value. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );

const enabled = (m: MountRecord): MountEvent => {
  const { tainted: _tainted, ...record } = m;
  return { type: isAuthPath(m.path) ? 'AuthMethodEnabled' : 'MountEnabled', data: record };
};

const disabled = (m: MountRecord): MountEvent => ({
  type: isAuthPath(m.path) ? 'AuthMethodDisabled' : 'MountDisabled',
  data: { uuid: m.uuid, path: m.path, type: m.type },
});

/**
 * The mount-table events that take this cluster's own `mounts/table` history (`own`) to the table
 * it serves (`served`: its own mounts plus the former primary's, which replaced its built-ins and
 * a dev server's `secret/` by path). The whole table is one stream both clusters wrote, so the
 * fold compares tables instead of copying the former primary's events: every mount of the own
 * history that is not served as it is goes (first, freeing its path), every served mount the own
 * history does not hold as it is comes (as its current record, tuned config included). Empty
 * when the own history already gives the served table, so folding again appends nothing.
 */
export function mountTableFold(own: readonly MountEvent[], served: readonly MountRecord[]): MountEvent[] {
  const history = own.reduce<MountRecord[]>(evolveMounts, []);
  const servedBy = new Map(served.map((m) => [m.uuid, m]));
  const historyBy = new Map(history.map((m) => [m.uuid, m]));
  // absent and false / "" mean the same (the read model leaves them out, an event may not)
  const normal = (m: MountRecord) => ({ ...m, tainted: m.tainted === true, namespace: m.namespace ?? '' });
  const same = (a: MountRecord | undefined, b: MountRecord): boolean =>
    a !== undefined && canonical(normal(a)) === canonical(normal(b));
  const events: MountEvent[] = [];
  for (const m of history) if (!same(servedBy.get(m.uuid), m)) events.push(disabled(m));
  for (const m of served) {
    if (same(historyBy.get(m.uuid), m)) continue;
    events.push(enabled(m));
    if (m.tainted === true) events.push({ type: 'MountTainted', data: { uuid: m.uuid, path: m.path } });
  }
  return events;
}
