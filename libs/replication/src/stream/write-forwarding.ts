import {
  addressedMountPath,
  defineContract,
  DomainError,
  enablesLocalMount,
  engineRequestSchema,
  isDomainError,
  mountInfoSchema,
  replicatedWriteRoutes,
  type MountEntry,
} from '@coffer/contracts';
import {
  approleRoutes,
  identityLoginAlias,
  identityRoutes,
  systemRoutes,
  tokenRoutes,
  userpassRoutes,
} from '@coffer/contracts/core-sys';
import { cloudARoutes } from '@coffer/contracts/cloud-a';
import { cloudBRoutes } from '@coffer/contracts/cloud-b';
import { pki, pkiRoutes } from '@coffer/contracts/pki';
import { oidcRoutes } from '@coffer/contracts/oidc';
import { directoryRoutes } from '@coffer/contracts/directory';
import { kvV1Routes, kvV2Routes } from '@coffer/contracts/kv';
import type { ForwardedAnswer, ForwardedWrite } from '@coffer/contracts/replication';
import { sshRoutes } from '@coffer/contracts/ssh';
import type { Transport } from '@coffer/transport';
import { z } from 'zod';
import type { StreamFilter } from './stream-filter';
import type { ServerFrame } from './stream.wire';

/**
 * The writes a performance secondary forwards (to a mount it shares with the primary): the routes
 * flagged `replicated`, by subject. kv's: every kv v1 and v2 write (cubbyhole is the secondary's
 * own); core-sys's: mounts, auth methods, policies, namespaces, userpass users, AppRole roles and
 * secret ids, identity, token roles, password policies (tokens, leases, logins and seal routes
 * are the secondary's own); oidc's: its configuration (keys and their rotation, providers,
 * scopes, clients, assignments). One line per route table.
 */
export const REPLICATED_WRITE_ROUTES = replicatedWriteRoutes([
  kvV1Routes,
  kvV2Routes,
  systemRoutes,
  userpassRoutes,
  approleRoutes,
  identityRoutes,
  tokenRoutes,
  sshRoutes,
  cloudARoutes, // cloud-creds: config and roles (creds stay local)
  cloudBRoutes,
  pkiRoutes,
  oidcRoutes,
  directoryRoutes,
]);

/**
 * Writes no route table holds that a performance secondary's services forward themselves, by
 * subject → service: a login's alias registration (core-sys), and pki's records of a revocation
 * for the unified CRL and of a cross-cluster revocation request (replicated state a secondary
 * cannot write itself).
 */
export const INTERNAL_FORWARDED_WRITES: ReadonlyMap<string, string> = new Map([
  [identityLoginAlias.subject, 'core-sys'],
  [pki.unifiedRevocationRecord.subject, 'pki'],
  [pki.crossRevocationRequest.subject, 'pki'],
]);

/** The log a forwarded write's service appends to: its schema (the index state's source). */
export const logSchemaOf = (service: string): string => service.replaceAll('-', '_');

/** The text a client gets when the primary cannot be reached (503, Vault's "unavailable"). */
export const PRIMARY_UNREACHABLE =
  'cannot forward the write to the performance primary: it is unreachable; retry later or write to the primary';

type ForwardedFrame = Extract<ServerFrame, { t: 'forwarded' }>;

/** The secondary's outcome of the primary's answer: the engine's answer, or its error. */
export function answerOf(f: ForwardedFrame): ForwardedAnswer | DomainError {
  if ('ok' in f.result) return f.result.ok;
  const e = f.result.error;
  return new DomainError(e.code, e.message, e.data, e.warnings);
}

/** Any engine contract by subject: the engine validates the request with its own schema. */
const engineContractAt = (subject: string) =>
  defineContract(subject, engineRequestSchema, z.record(z.string(), z.unknown()));

export interface PrimarySide {
  transport: Transport;
  mounts: () => Promise<MountEntry[]>;
  filterFor: (secondaryId: string) => StreamFilter | undefined;
  /** this cluster's own log head of a schema (after the write committed) */
  head: (schema: string) => Promise<number>;
}

/**
 * Why the primary will not run a forwarded write (undefined: it will). The secondary already
 * checked the caller's token and ACL; the primary re-checks what the secondary cannot be trusted
 * with or may have stale: that it is a write through one of the engine's routes flagged
 * `replicated` (never a replication subject, nor cubbyhole), or one of the
 * INTERNAL_FORWARDED_WRITES (a login's alias registration on the alias's auth mount, pki's unified
 * revocation records on the pki mount), to a mount the primary
 * has, that is replicated (not local) and not filtered out for this secondary; and for a route
 * addressing a mount by path, that it neither enables a local one nor addresses one of the
 * primary's local mounts.
 */
export function forwardRefusal(
  forward: ForwardedWrite,
  mount: MountEntry | undefined,
  filter: StreamFilter | undefined,
  mounts: readonly MountEntry[] = [],
): string | undefined {
  const { service, subject, request } = forward;
  if (subject.startsWith(`${service}.replication.`) || subject.startsWith('kv.cubbyhole.'))
    return 'this path is local to the secondary';
  const replicatedRoute = REPLICATED_WRITE_ROUTES.get(subject);
  const internal = INTERNAL_FORWARDED_WRITES.get(subject) === service;
  if (!internal && replicatedRoute?.service !== service) return `writes to ${service} are not forwarded`;
  if (request.operation === 'read' || request.operation === 'list') return 'only writes are forwarded';
  if (!mount || mount.namespace !== request.mount.namespace) return 'no such mount on the primary';
  if (mount.local || mount.type === 'cubbyhole') return 'the mount is local: it is not replicated';
  if (filter?.excludedMountUuids.has(mount.uuid)) return 'the mount is filtered out for this secondary';
  if (replicatedRoute?.replicated === 'mount') {
    if (enablesLocalMount(request.body)) return 'a local mount is enabled on the secondary itself';
    const path = addressedMountPath(replicatedRoute, request.params, request.body);
    const addressed = mounts.find((m) => m.namespace === mount.namespace && withSlash(m.path) === path);
    if (addressed?.local) return 'the mount is local: it is not replicated';
  }
  return undefined;
}

const withSlash = (path: string): string => (path.endsWith('/') ? path : `${path}/`);

/**
 * Primary side: runs a forwarded write on this cluster's engine (kv, core-sys, ...) as the caller
 * the secondary resolved, with the primary's own mount entry (not the secondary's copy), and
 * answers the service's log head once it committed (the client's X-Service-Index; core-sys's
 * is the position a secondary's core-sys replica log reaches when the write has streamed). An engine's refusal
 * (404, 400...) goes back as the same DomainError.
 */
export async function runForwarded(
  side: PrimarySide,
  secondaryId: string,
  forward: ForwardedWrite,
): Promise<ForwardedAnswer> {
  const mounts = await side.mounts();
  const mount = mounts.find((m) => m.uuid === forward.request.mount.uuid);
  const refusal = forwardRefusal(forward, mount, side.filterFor(secondaryId), mounts);
  if (refusal !== undefined || !mount)
    throw new DomainError('invalid_request', `forwarding refused: ${refusal}`);
  // the primary's own entry (a zod object strips the table-only fields), not the secondary's copy
  const request = { ...forward.request, mount: mountInfoSchema.parse(mount) };
  const answer = await side.transport.request(engineContractAt(forward.subject), request, {
    headers: forward.context,
    write: true,
  });
  const source = logSchemaOf(forward.service);
  return { answer, index: { source, wal: await side.head(source) } };
}

/** The frame answering a forwarded write (its error as a DomainError body, never a stack). */
export function forwardedResult(outcome: unknown): ForwardedFrame['result'] {
  if (!isDomainError(outcome)) {
    // the primary logged it; the secondary learns no more than a client would
    if (outcome instanceof Error) return { error: { code: 'internal', message: 'internal error' } };
    return { ok: outcome as ForwardedAnswer };
  }
  const body = outcome.toBody();
  return {
    error: {
      code: body.code,
      message: body.message,
      ...(body.data !== undefined ? { data: body.data } : {}),
      ...(body.warnings !== undefined ? { warnings: body.warnings } : {}),
    },
  };
}
