import { posix } from 'node:path';
import { invalidRequest, type SysRemountBody } from '@coffer/contracts';
import { isAuthPath, namespaceOf, type MountRecord } from './mount.model';
import { PROTECTED_MOUNT_PREFIXES, sanitizeMountPath } from './mounts.decider';
import type { MountEvent } from './mounts.events';

/**
 * Pure rules of sys/remount (Vault's handleRemount, remountSecretsEngine, remountCredential):
 * where `from` and `to` point (a path may start with child namespaces), which mounts may move
 * where, and the events that start, finish or abandon a move.
 */

/** Auth methods that never move (Vault's protectedAuths). */
const PROTECTED_AUTHS = ['auth/token'] as const;

/** Go's %q of a string, as Vault's messages quote paths. */
const quoted = (s: string): string => JSON.stringify(s);

/** A path resolved against the namespace tree: the namespace it lies in and the mount path in it. */
export interface MountPathDetails {
  /** "" = root, else "ns1/ns2/" */
  namespace: string;
  /** sanitised, relative to the namespace: "secret/", "auth/userpass/" */
  mountPath: string;
}

/** Where a move goes: decided once, carried to the background job that finishes it. */
export interface RemountPlan {
  migrationId: string;
  uuid: string;
  kind: 'secret' | 'auth';
  source: MountPathDetails;
  target: MountPathDetails;
}

/**
 * Vault's splitNamespaceAndMountFromPath: the caller's namespace plus the path, split at the
 * longest live namespace at or under the caller's ("ns2/secret" from "ns1/" is ns1/ns2/ + secret/).
 */
export function splitNamespaceAndMount(
  callerNamespace: string,
  path: string,
  liveNamespaces: readonly string[],
): MountPathDetails {
  const full = callerNamespace + path.replace(/^\/+/, '');
  let namespace = callerNamespace;
  for (const ns of liveNamespaces) {
    if (!ns.startsWith(callerNamespace) || ns.length <= namespace.length) continue;
    if (full.startsWith(ns)) namespace = ns;
  }
  return { namespace, mountPath: sanitizeMountPath(full.slice(namespace.length)) };
}

/** Vault's validateMountPath: the path must be its own cleaned form, printable only. */
function checkDestination(mountPath: string): void {
  const cleaned = posix.normalize(mountPath);
  if (cleaned !== mountPath)
    throw invalidRequest(
      `invalid destination mount: path '${mountPath}' does not match cleaned path '${cleaned}'`,
    );
  // eslint-disable-next-line no-control-regex -- the control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(mountPath))
    throw invalidRequest('invalid destination mount: path cannot contain non-printable characters');
}

function checkProtected(source: string, target: string): void {
  if (isAuthPath(source)) {
    if (!isAuthPath(target))
      throw invalidRequest(`cannot remount auth mount to non-auth mount ${quoted(target)}`);
    if (PROTECTED_AUTHS.some((p) => source.startsWith(p)))
      throw invalidRequest(`cannot remount ${quoted(source)}`);
    if (PROTECTED_AUTHS.some((p) => target.startsWith(p)))
      throw invalidRequest(`cannot remount to destination ${quoted(target)}`);
    return;
  }
  for (const p of PROTECTED_MOUNT_PREFIXES) {
    if (source.startsWith(p)) throw invalidRequest(`cannot remount ${quoted(source)}`);
    if (target.startsWith(p)) throw invalidRequest(`cannot remount to destination ${target}`);
  }
}

/** Vault's MountConflict: a mount of the namespace at, above or below the path (full path named). */
function conflictAt(
  table: readonly MountRecord[],
  at: MountPathDetails,
  except?: string,
): string | undefined {
  for (const m of table) {
    if (m.uuid === except || namespaceOf(m) !== at.namespace) continue;
    if (at.mountPath.startsWith(m.path) || m.path.startsWith(at.mountPath)) return at.namespace + m.path;
  }
  return undefined;
}

export interface RemountStart {
  plan: RemountPlan;
  event: MountEvent;
}

/**
 * handleRemount's checks, in its order and with its texts; then the start of the migration (the
 * source mount tainted while its leases are revoked).
 */
export function decideRemountStart(
  table: readonly MountRecord[],
  liveNamespaces: readonly string[],
  callerNamespace: string,
  body: SysRemountBody,
  migrationId: string,
): RemountStart {
  const { from, to } = body;
  if (from === '' || to === '')
    throw invalidRequest("both 'from' and 'to' path must be specified as a string");
  if (from.trim() !== from) throw invalidRequest("'from' path cannot contain trailing whitespace");
  if (to.trim() !== to) throw invalidRequest("'to' path cannot contain trailing whitespace");
  const source = splitNamespaceAndMount(callerNamespace, from, liveNamespaces);
  const target = splitNamespaceAndMount(callerNamespace, to, liveNamespaces);
  checkDestination(target.mountPath);
  checkProtected(source.mountPath, target.mountPath);
  const mount = table.find(
    (m) => namespaceOf(m) === source.namespace && m.path === source.mountPath && m.tainted !== true,
  );
  if (!mount) throw invalidRequest(`no matching mount at ${quoted(sanitizeMountPath(from))}`);
  const conflict = conflictAt(table, target);
  if (conflict !== undefined) throw invalidRequest(`path already in use at ${quoted(conflict)}`);
  const plan: RemountPlan = {
    migrationId,
    uuid: mount.uuid,
    kind: isAuthPath(mount.path) ? 'auth' : 'secret',
    source,
    target,
  };
  return {
    plan,
    event: {
      type: 'MountMigrationStarted',
      data: { migrationId, uuid: mount.uuid, source, target },
    },
  };
}

/**
 * The move itself, once the leases are revoked: the destination is checked again (a mount may
 * have been enabled there meanwhile, as Vault re-checks under its lock) and must still be a live
 * namespace. Answers the failure event instead when it cannot move.
 */
export function decideRemountFinish(
  table: readonly MountRecord[],
  liveNamespaces: readonly string[],
  plan: RemountPlan,
): MountEvent | undefined {
  const { migrationId, uuid, target } = plan;
  const mount = table.find((m) => m.uuid === uuid);
  // gone (unmounted meanwhile) or no longer moving: finished by someone else (a resumed move)
  if (!mount || mount.tainted !== true) return undefined;
  const failed = (reason: string): MountEvent => ({
    type: 'MountMigrationFailed',
    data: { migrationId, uuid, reason },
  });
  if (target.namespace !== '' && !liveNamespaces.includes(target.namespace))
    return failed(`namespace ${quoted(target.namespace)} no longer exists`);
  const conflict = conflictAt(table, target, uuid);
  if (conflict !== undefined) return failed(`path in use at ${quoted(conflict)}`);
  return {
    type: 'MountMoved',
    data: { migrationId, uuid, path: target.mountPath, namespace: target.namespace },
  };
}

/** The plan of a migration from its start (a move interrupted by a crash is finished from it). */
export function planOf(started: {
  migrationId: string;
  uuid: string;
  source: MountPathDetails;
  target: MountPathDetails;
}): RemountPlan {
  const { migrationId, uuid, source, target } = started;
  return { migrationId, uuid, kind: isAuthPath(source.mountPath) ? 'auth' : 'secret', source, target };
}

/** The failure of a move whose background work threw (a lease the engine would not revoke). */
export function remountFailed(plan: RemountPlan, reason: string): MountEvent {
  return { type: 'MountMigrationFailed', data: { migrationId: plan.migrationId, uuid: plan.uuid, reason } };
}
