import { DomainError, invalidRequest, notFound } from '@coffer/contracts';
import type { Kv2Event } from './kv2.events';
import {
  DEFAULT_MAX_VERSIONS,
  isDeleted,
  type EngineConfig,
  type KeyState,
  type VersionState,
} from './kv2.state';
import { versionMetadataView } from './kv2.view';

/**
 * Pure kv v2 rules, after Vault's kv-v2 plugin: check-and-set, version numbering, max_versions
 * pruning, delete_version_after, soft delete / undelete / destroy and key metadata. Each
 * decide function returns the events to append (possibly none) or throws a DomainError.
 */

export const CAS_MISMATCH = 'check-and-set parameter did not match the current version';
export const CAS_REQUIRED = 'check-and-set parameter required for this call';

/** Check-and-set: a given cas must equal the current version (0 for a new key); else cas may be required. */
export function checkCas(state: KeyState | null, config: EngineConfig, cas: number | undefined): void {
  if (cas !== undefined) {
    if (cas !== (state?.currentVersion ?? 0)) throw invalidRequest(CAS_MISMATCH);
    return;
  }
  if (config.casRequired || (state?.casRequired ?? false)) throw invalidRequest(CAS_REQUIRED);
}

/** Versions kept: the key's setting when set, else the engine's, else 10. */
export function effectiveMaxVersions(
  state: Pick<KeyState, 'maxVersions'> | null,
  config: EngineConfig,
): number {
  if (state && state.maxVersions > 0) return state.maxVersions;
  if (config.maxVersions > 0) return config.maxVersions;
  return DEFAULT_MAX_VERSIONS;
}

/**
 * When a version written (or undeleted) at `from` is soft-deleted automatically: after the
 * smaller non-zero delete_version_after of engine and key (so a key value above the engine's is
 * replaced by the engine's); never when both are unset or the engine disabled it (negative).
 */
export function scheduledDeletion(
  from: Date,
  config: EngineConfig,
  keyDeleteVersionAfter: number,
): string | null {
  if (config.deleteVersionAfter < 0) return null;
  const candidates = [config.deleteVersionAfter, keyDeleteVersionAfter].filter((s) => s > 0);
  if (candidates.length === 0) return null;
  return new Date(from.getTime() + Math.min(...candidates) * 1000).toISOString();
}

export interface WritePlan {
  version: number;
  createdTime: string;
  deletionTime: string | null;
  /** set when max_versions moves the window: versions whose data is erased, and the new oldest */
  prune: { versions: number[]; oldestVersion: number } | null;
}

function planVersion(state: KeyState | null, config: EngineConfig, now: Date): WritePlan {
  const version = (state?.currentVersion ?? 0) + 1;
  const oldest = state?.oldestVersion ?? 0;
  const max = effectiveMaxVersions(state, config);
  let prune: WritePlan['prune'] = null;
  // Vault's sliding window: once current - oldest reaches max, everything up to current - max goes.
  if (version - oldest >= max) {
    const last = version - max;
    const versions = [...(state?.versions.keys() ?? [])].filter((v) => v <= last).sort((a, b) => a - b);
    prune = { versions, oldestVersion: last + 1 };
  }
  return {
    version,
    createdTime: now.toISOString(),
    deletionTime: scheduledDeletion(now, config, state?.deleteVersionAfter ?? 0),
    prune,
  };
}

/** POST data/:path. */
export function decideWrite(
  state: KeyState | null,
  config: EngineConfig,
  cmd: { cas: number | undefined; now: Date },
): WritePlan {
  checkCas(state, config, cmd.cas);
  return planVersion(state, config, cmd.now);
}

/** PATCH data/:path: the current version must exist and be neither deleted nor destroyed. */
export function decidePatch(
  state: KeyState | null,
  config: EngineConfig,
  cmd: { cas: number | undefined; now: Date },
): WritePlan {
  if (!state) throw notFound();
  checkCas(state, config, cmd.cas);
  const current = state.versions.get(state.currentVersion);
  if (!current) throw notFound();
  if (isDeleted(current, cmd.now) || current.destroyed) {
    throw notFound(versionMetadataView(state, state.currentVersion, current));
  }
  return planVersion(state, config, cmd.now);
}

/** The events a write plan produces, once the service has sealed the data under a fresh data key. */
export function writeEvents(plan: WritePlan, sealed: { keyId: string; ciphertext: string }): Kv2Event[] {
  const events: Kv2Event[] = [
    {
      type: 'SecretVersionWritten',
      data: {
        version: plan.version,
        createdTime: plan.createdTime,
        deletionTime: plan.deletionTime,
        keyId: sealed.keyId,
        ciphertext: sealed.ciphertext,
      },
    },
  ];
  if (plan.prune) events.push({ type: 'SecretVersionsPruned', data: plan.prune });
  return events;
}

/** DELETE data/:path: soft-delete the latest version unless it is gone already. */
export function decideDeleteLatest(state: KeyState | null, now: Date): Kv2Event[] {
  if (!state) return [];
  const latest = state.versions.get(state.currentVersion);
  if (!latest || latest.destroyed || isDeleted(latest, now)) return [];
  return [
    {
      type: 'SecretVersionsDeleted',
      data: { versions: [state.currentVersion], deletionTime: now.toISOString() },
    },
  ];
}

function requireVersions(versions: number[], message: string): void {
  if (versions.length === 0) throw invalidRequest(message);
}

function selectVersions(state: KeyState, versions: number[], keep: (v: VersionState) => boolean): number[] {
  const selected = new Set<number>();
  for (const n of versions) {
    const v = state.versions.get(n);
    if (v && keep(v)) selected.add(n);
  }
  return [...selected].sort((a, b) => a - b);
}

/** POST delete/:path. */
export function decideDeleteVersions(state: KeyState | null, versions: number[], now: Date): Kv2Event[] {
  requireVersions(versions, 'No version number provided');
  if (!state) return [];
  const selected = selectVersions(state, versions, (v) => !v.destroyed && !isDeleted(v, now));
  if (selected.length === 0) return [];
  return [{ type: 'SecretVersionsDeleted', data: { versions: selected, deletionTime: now.toISOString() } }];
}

/** POST undelete/:path: clears the deletion, re-arming delete_version_after from now (as Vault does). */
export function decideUndelete(
  state: KeyState | null,
  config: EngineConfig,
  versions: number[],
  now: Date,
): Kv2Event[] {
  requireVersions(versions, 'No version number provided');
  if (!state) return [];
  const selected = selectVersions(state, versions, (v) => !v.destroyed);
  if (selected.length === 0) return [];
  const deletionTime = scheduledDeletion(now, config, state.deleteVersionAfter);
  return [{ type: 'SecretVersionsUndeleted', data: { versions: selected, deletionTime } }];
}

/** POST destroy/:path. */
export function decideDestroy(state: KeyState | null, versions: number[]): Kv2Event[] {
  requireVersions(versions, 'no version number provided');
  if (!state) return [];
  const selected = selectVersions(state, versions, (v) => !v.destroyed);
  if (selected.length === 0) return [];
  return [{ type: 'SecretVersionsDestroyed', data: { versions: selected } }];
}

export interface MetadataInput {
  maxVersions?: number;
  casRequired?: boolean;
  deleteVersionAfter?: number;
  /** POST: the full new map; PATCH: a merge patch already applied by the caller */
  customMetadata?: Record<string, string>;
}

export interface MetadataDecision {
  events: Kv2Event[];
  warnings: string[];
}

const CAS_MANDATED_WARNING =
  '"cas_required" set to false, but is mandated by backend config. This value will be ignored.';

function metadataEvent(state: KeyState | null, input: MetadataInput, now: Date): Kv2Event {
  const custom = input.customMetadata ?? state?.customMetadata ?? null;
  return {
    type: 'SecretMetadataWritten',
    data: {
      maxVersions: input.maxVersions ?? state?.maxVersions ?? 0,
      casRequired: input.casRequired ?? state?.casRequired ?? false,
      deleteVersionAfter: input.deleteVersionAfter ?? state?.deleteVersionAfter ?? 0,
      customMetadata: custom && Object.keys(custom).length > 0 ? custom : null,
      at: now.toISOString(),
    },
  };
}

function casWarnings(config: EngineConfig, input: MetadataInput): string[] {
  return input.casRequired === false && config.casRequired ? [CAS_MANDATED_WARNING] : [];
}

function isEmptyInput(input: MetadataInput): boolean {
  return (
    input.maxVersions === undefined &&
    input.casRequired === undefined &&
    input.deleteVersionAfter === undefined &&
    input.customMetadata === undefined
  );
}

/** POST metadata/:path: creates the metadata of a key that has none; no field given is a no-op. */
export function decideMetadataWrite(
  state: KeyState | null,
  config: EngineConfig,
  input: MetadataInput,
  now: Date,
): MetadataDecision {
  if (isEmptyInput(input)) return { events: [], warnings: [] };
  return { events: [metadataEvent(state, input, now)], warnings: casWarnings(config, input) };
}

/** PATCH metadata/:path: the key must exist. */
export function decideMetadataPatch(
  state: KeyState | null,
  config: EngineConfig,
  input: MetadataInput,
  now: Date,
): MetadataDecision {
  if (!state) throw notFound();
  return { events: [metadataEvent(state, input, now)], warnings: casWarnings(config, input) };
}

/** DELETE metadata/:path: the key and every version go; their data keys are erased. */
export function decideMetadataDelete(state: KeyState | null): Kv2Event[] {
  if (!state) return [];
  const versions = [...state.versions.keys()].sort((a, b) => a - b);
  return [{ type: 'SecretMetadataDeleted', data: { versions } }];
}

/** Applies one event to the decision state (used to check decisions and to fold a stream). */
export function evolve(state: KeyState | null, event: Kv2Event): KeyState | null {
  switch (event.type) {
    case 'SecretVersionWritten': {
      const d = event.data;
      const base = state ?? emptyKey(d.createdTime);
      const versions = new Map(base.versions);
      versions.set(d.version, { createdTime: d.createdTime, deletionTime: d.deletionTime, destroyed: false });
      return { ...base, currentVersion: d.version, updatedTime: d.createdTime, versions };
    }
    case 'SecretVersionsPruned': {
      if (!state) throw new DomainError('internal', 'prune of a missing key');
      const versions = new Map(state.versions);
      for (const v of versions.keys()) if (v < event.data.oldestVersion) versions.delete(v);
      return { ...state, oldestVersion: event.data.oldestVersion, versions };
    }
    case 'SecretVersionsDeleted':
    case 'SecretVersionsUndeleted':
      return (
        state &&
        withVersions(state, event.data.versions, (v) => ({ ...v, deletionTime: event.data.deletionTime }))
      );
    case 'SecretVersionsDestroyed':
      return state && withVersions(state, event.data.versions, (v) => ({ ...v, destroyed: true }));
    case 'SecretMetadataWritten': {
      const d = event.data;
      const base = state ?? emptyKey(d.at);
      return {
        ...base,
        maxVersions: d.maxVersions,
        casRequired: d.casRequired,
        deleteVersionAfter: d.deleteVersionAfter,
        customMetadata: d.customMetadata,
      };
    }
    case 'SecretMetadataDeleted':
      return null;
  }
}

function emptyKey(at: string): KeyState {
  return {
    currentVersion: 0,
    oldestVersion: 0,
    maxVersions: 0,
    casRequired: false,
    deleteVersionAfter: 0,
    customMetadata: null,
    createdTime: at,
    updatedTime: at,
    versions: new Map(),
  };
}

function withVersions(
  state: KeyState,
  numbers: number[],
  change: (v: VersionState) => VersionState,
): KeyState {
  const versions = new Map(state.versions);
  for (const n of numbers) {
    const v = versions.get(n);
    if (v) versions.set(n, change(v));
  }
  return { ...state, versions };
}
