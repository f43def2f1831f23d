import { DomainError } from '@coffer/contracts';
import {
  CAS_MISMATCH,
  CAS_REQUIRED,
  checkCas,
  decideDeleteLatest,
  decideDeleteVersions,
  decideDestroy,
  decideMetadataDelete,
  decideMetadataPatch,
  decideMetadataWrite,
  decidePatch,
  decideUndelete,
  decideWrite,
  effectiveMaxVersions,
  evolve,
  scheduledDeletion,
  writeEvents,
} from './kv2.decider';
import type { Kv2Event } from './kv2.events';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig, type KeyState } from './kv2.state';

const T0 = new Date('2024-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const sealed = { keyId: 'k', ciphertext: 'c' };

function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

/** Folds writes through the decider, as the service would. */
function writeN(
  n: number,
  config: EngineConfig = DEFAULT_ENGINE_CONFIG,
  start: KeyState | null = null,
): KeyState {
  let state = start;
  for (let i = 0; i < n; i++) {
    const plan = decideWrite(state, config, { cas: undefined, now: at(i) });
    state = fold(state, writeEvents(plan, sealed));
  }
  if (!state) throw new Error('no state');
  return state;
}

const fold = (state: KeyState | null, events: Kv2Event[]) => events.reduce(evolve, state);

describe('check-and-set', () => {
  it('accepts cas 0 for a new key and rejects any other value', () => {
    expect(() => checkCas(null, DEFAULT_ENGINE_CONFIG, 0)).not.toThrow();
    expect(caught(() => checkCas(null, DEFAULT_ENGINE_CONFIG, 1)).message).toBe(CAS_MISMATCH);
  });

  it('requires cas to equal the current version of an existing key', () => {
    const state = writeN(2);
    expect(() => checkCas(state, DEFAULT_ENGINE_CONFIG, 2)).not.toThrow();
    const e = caught(() => checkCas(state, DEFAULT_ENGINE_CONFIG, 0));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toBe('check-and-set parameter did not match the current version');
    expect(caught(() => checkCas(state, DEFAULT_ENGINE_CONFIG, 1)).message).toBe(CAS_MISMATCH);
  });

  it('requires cas when the engine or the key says so', () => {
    const engine = { ...DEFAULT_ENGINE_CONFIG, casRequired: true };
    expect(caught(() => checkCas(null, engine, undefined)).message).toBe(
      'check-and-set parameter required for this call',
    );
    const key = { ...writeN(1), casRequired: true };
    expect(caught(() => checkCas(key, DEFAULT_ENGINE_CONFIG, undefined)).message).toBe(CAS_REQUIRED);
    expect(() => checkCas(key, DEFAULT_ENGINE_CONFIG, 1)).not.toThrow();
  });

  it('applies to writes on a soft-deleted key: cas must equal the current version', () => {
    const state = fold(writeN(1), decideDeleteLatest(writeN(1), at(5)));
    expect(() => decideWrite(state, DEFAULT_ENGINE_CONFIG, { cas: 1, now: at(6) })).not.toThrow();
    expect(caught(() => decideWrite(state, DEFAULT_ENGINE_CONFIG, { cas: 0, now: at(6) })).message).toBe(
      CAS_MISMATCH,
    );
  });
});

describe('max_versions', () => {
  it('keeps 10 versions when neither key nor engine sets it (0 means 10)', () => {
    const state = writeN(12);
    expect([...state.versions.keys()]).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(state.oldestVersion).toBe(3);
    expect(state.currentVersion).toBe(12);
  });

  it('leaves oldest_version at 0 until the window first moves, like Vault', () => {
    expect(writeN(9).oldestVersion).toBe(0);
    expect(writeN(10).oldestVersion).toBe(1);
    expect([...writeN(10).versions.keys()]).toHaveLength(10);
  });

  it('prefers the key setting over the engine setting', () => {
    const engine = { ...DEFAULT_ENGINE_CONFIG, maxVersions: 5 };
    expect(effectiveMaxVersions(null, engine)).toBe(5);
    expect(effectiveMaxVersions({ maxVersions: 2 }, engine)).toBe(2);
    expect(effectiveMaxVersions({ maxVersions: 0 }, DEFAULT_ENGINE_CONFIG)).toBe(10);
    const key = { ...writeN(1, engine), maxVersions: 2 };
    const state = writeN(3, engine, key);
    expect([...state.versions.keys()]).toEqual([3, 4]);
  });

  it('prunes several versions at once when max_versions shrinks, and says which', () => {
    const state = { ...writeN(6), maxVersions: 2 };
    const plan = decideWrite(state, DEFAULT_ENGINE_CONFIG, { cas: undefined, now: at(10) });
    expect(plan.version).toBe(7);
    expect(plan.prune).toEqual({ versions: [1, 2, 3, 4, 5], oldestVersion: 6 });
    const events = writeEvents(plan, sealed);
    expect(events.map((e) => e.type)).toEqual(['SecretVersionWritten', 'SecretVersionsPruned']);
    expect([...fold(state, events)!.versions.keys()]).toEqual([6, 7]);
  });
});

describe('delete_version_after', () => {
  const engine = (s: number): EngineConfig => ({ ...DEFAULT_ENGINE_CONFIG, deleteVersionAfter: s });

  it('is computed at write time from the smaller non-zero of engine and key', () => {
    expect(scheduledDeletion(T0, engine(0), 0)).toBeNull();
    expect(scheduledDeletion(T0, engine(60), 0)).toBe(at(60).toISOString());
    expect(scheduledDeletion(T0, engine(0), 30)).toBe(at(30).toISOString());
    expect(scheduledDeletion(T0, engine(60), 30)).toBe(at(30).toISOString());
    // a key value above the engine's is replaced by the engine's
    expect(scheduledDeletion(T0, engine(60), 3600)).toBe(at(60).toISOString());
  });

  it('is disabled for every key by a negative engine value', () => {
    expect(scheduledDeletion(T0, engine(-1), 30)).toBeNull();
  });

  it('makes a version count as deleted once its time passes, with no timer', () => {
    const config = engine(60);
    const state = writeN(1, config);
    expect(state.versions.get(1)?.deletionTime).toBe(at(60).toISOString());
    // PATCH before the deadline works; after it the version is deleted -> 404 with metadata
    expect(() => decidePatch(state, config, { cas: undefined, now: at(59) })).not.toThrow();
    const e = caught(() => decidePatch(state, config, { cas: undefined, now: at(60) }));
    expect(e.code).toBe('not_found');
    expect(e.data).toMatchObject({ version: 1, deletion_time: at(60).toISOString(), destroyed: false });
  });

  it('is re-armed from now by undelete', () => {
    const config = engine(60);
    const state = writeN(1, config);
    const events = decideUndelete(state, config, [1], at(100));
    expect(events).toEqual([
      { type: 'SecretVersionsUndeleted', data: { versions: [1], deletionTime: at(160).toISOString() } },
    ]);
  });
});

describe('delete, undelete, destroy', () => {
  it('soft-deletes the latest version once', () => {
    const state = writeN(2);
    const events = decideDeleteLatest(state, at(10));
    expect(events).toEqual([
      { type: 'SecretVersionsDeleted', data: { versions: [2], deletionTime: at(10).toISOString() } },
    ]);
    expect(decideDeleteLatest(fold(state, events), at(11))).toEqual([]);
    expect(decideDeleteLatest(null, at(11))).toEqual([]);
  });

  it('deletes listed versions that exist and are live, ignoring the rest', () => {
    const state = fold(writeN(3), decideDestroy(writeN(3), [3]));
    expect(decideDeleteVersions(state, [1, 3, 9, 1], at(10))).toEqual([
      { type: 'SecretVersionsDeleted', data: { versions: [1], deletionTime: at(10).toISOString() } },
    ]);
    expect(caught(() => decideDeleteVersions(state, [], at(10))).message).toBe('No version number provided');
    expect(decideDeleteVersions(null, [1], at(10))).toEqual([]);
  });

  it('undeletes but never resurrects a destroyed version', () => {
    let state = writeN(2);
    state = fold(state, decideDeleteVersions(state, [1, 2], at(5)))!;
    state = fold(state, decideDestroy(state, [2]))!;
    const events = decideUndelete(state, DEFAULT_ENGINE_CONFIG, [1, 2], at(6));
    expect(events).toEqual([
      { type: 'SecretVersionsUndeleted', data: { versions: [1], deletionTime: null } },
    ]);
    expect(fold(state, events)!.versions.get(1)?.deletionTime).toBeNull();
  });

  it('destroys listed versions once and needs a version list', () => {
    const state = writeN(2);
    expect(decideDestroy(state, [2, 1, 2])).toEqual([
      { type: 'SecretVersionsDestroyed', data: { versions: [1, 2] } },
    ]);
    expect(decideDestroy(fold(state, decideDestroy(state, [1, 2])), [1])).toEqual([]);
    expect(caught(() => decideDestroy(state, [])).message).toBe('no version number provided');
  });
});

describe('patch', () => {
  it('answers 404 without body for a missing key', () => {
    const e = caught(() => decidePatch(null, DEFAULT_ENGINE_CONFIG, { cas: undefined, now: T0 }));
    expect(e.code).toBe('not_found');
    expect(e.data).toBeUndefined();
  });

  it('answers 404 with the metadata for a destroyed current version', () => {
    const state = fold(writeN(1), decideDestroy(writeN(1), [1]));
    const e = caught(() => decidePatch(state, DEFAULT_ENGINE_CONFIG, { cas: undefined, now: at(5) }));
    expect(e.data).toMatchObject({ version: 1, destroyed: true, deletion_time: '' });
  });

  it('checks cas like a write', () => {
    const state = writeN(2);
    expect(caught(() => decidePatch(state, DEFAULT_ENGINE_CONFIG, { cas: 1, now: at(5) })).message).toBe(
      CAS_MISMATCH,
    );
    expect(decidePatch(state, DEFAULT_ENGINE_CONFIG, { cas: 2, now: at(5) }).version).toBe(3);
  });
});

describe('metadata', () => {
  it('creates metadata for a key that has none, with no version', () => {
    const { events, warnings } = decideMetadataWrite(null, DEFAULT_ENGINE_CONFIG, { maxVersions: 3 }, T0);
    expect(warnings).toEqual([]);
    const state = fold(null, events)!;
    expect(state).toMatchObject({ currentVersion: 0, maxVersions: 3, createdTime: T0.toISOString() });
    expect(state.versions.size).toBe(0);
    // the key exists now, so cas 0 still matches its current version 0
    expect(() => checkCas(state, DEFAULT_ENGINE_CONFIG, 0)).not.toThrow();
  });

  it('keeps unspecified settings and ignores an empty request', () => {
    const state = { ...writeN(1), maxVersions: 4, customMetadata: { a: '1' } };
    expect(decideMetadataWrite(state, DEFAULT_ENGINE_CONFIG, {}, T0).events).toEqual([]);
    const { events } = decideMetadataWrite(state, DEFAULT_ENGINE_CONFIG, { casRequired: true }, T0);
    expect(fold(state, events)).toMatchObject({
      maxVersions: 4,
      casRequired: true,
      customMetadata: { a: '1' },
    });
  });

  it('warns when cas_required false is mandated by the engine', () => {
    const engine = { ...DEFAULT_ENGINE_CONFIG, casRequired: true };
    expect(decideMetadataWrite(null, engine, { casRequired: false }, T0).warnings).toEqual([
      '"cas_required" set to false, but is mandated by backend config. This value will be ignored.',
    ]);
  });

  it('patches only existing keys', () => {
    expect(caught(() => decideMetadataPatch(null, DEFAULT_ENGINE_CONFIG, { maxVersions: 1 }, T0)).code).toBe(
      'not_found',
    );
    const state = writeN(1);
    const { events } = decideMetadataPatch(state, DEFAULT_ENGINE_CONFIG, { customMetadata: {} }, T0);
    expect(fold(state, events)?.customMetadata).toBeNull();
  });

  it('deletes the key with all its versions, and a later write starts at version 1', () => {
    const state = writeN(3);
    const events = decideMetadataDelete(state);
    expect(events).toEqual([{ type: 'SecretMetadataDeleted', data: { versions: [1, 2, 3] } }]);
    expect(fold(state, events)).toBeNull();
    expect(decideWrite(null, DEFAULT_ENGINE_CONFIG, { cas: 0, now: T0 }).version).toBe(1);
    expect(decideMetadataDelete(null)).toEqual([]);
  });
});
