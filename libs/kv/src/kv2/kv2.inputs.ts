import { invalidRequest, multiError } from '@coffer/contracts';
import { parseDuration } from '@coffer/config';
import { parseBoolField, parseCas, parseIntField, parseIntListField } from '../shared/fields';
import { getOwn, hasOwn, isJsonObject, type JsonObject } from '@coffer/contracts';
import { mergePatch } from '../shared/merge-patch';
import type { MetadataInput } from './kv2.decider';
import type { EngineConfig } from './kv2.state';

/** Request bodies and query strings of kv v2, parsed with Vault's rules and error texts. */

const present = (body: JsonObject, key: string): boolean => hasOwn(body, key) && body[key] !== undefined;

function durationField(field: string, value: unknown): number {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw invalidRequest(
      `Field validation failed: error converting input for field "${field}": not a duration`,
    );
  }
  return parseDuration(value);
}

function nonNegativeInt(field: string, value: unknown): number {
  const n = parseIntField(field, value);
  if (n < 0) throw invalidRequest(`${field} cannot be negative`);
  if (n > 0xffffffff) throw invalidRequest(`${field} is too large`);
  return n;
}

/** POST config. A negative delete_version_after disables it for every key (stored as -1s). */
export function parseConfigInput(body: JsonObject, current: EngineConfig): EngineConfig | null {
  const given = ['max_versions', 'cas_required', 'delete_version_after'].some((k) => present(body, k));
  if (!given) return null;
  const next = { ...current };
  if (present(body, 'max_versions')) next.maxVersions = nonNegativeInt('max_versions', body['max_versions']);
  if (present(body, 'cas_required')) next.casRequired = parseBoolField('cas_required', body['cas_required']);
  if (present(body, 'delete_version_after')) {
    const seconds = durationField('delete_version_after', body['delete_version_after']);
    next.deleteVersionAfter = seconds < 0 ? -1 : seconds;
  }
  return next;
}

/** `version` query of data and subkeys reads: 0, negative or absent mean the latest version. */
export function parseVersionQuery(query: Record<string, string>): number {
  const raw = query['version'];
  if (raw === undefined) return 0;
  return Math.max(0, parseIntField('version', raw));
}

export function parseDepthQuery(query: Record<string, string>): number {
  const raw = query['depth'];
  if (raw === undefined) return 0;
  const depth = parseIntField('depth', raw);
  if (depth < 0) throw invalidRequest('depth must be a non-negative integer');
  return depth;
}

export function parseVersionsBody(body: JsonObject): number[] {
  return parseIntListField('versions', getOwn(body, 'versions'));
}

export interface DataWriteInput {
  data: JsonObject;
  cas: number | undefined;
}

/** POST/PATCH data/:path body: `data` must be an object; options.cas is optional. */
export function parseDataWrite(body: JsonObject): DataWriteInput {
  const data = getOwn(body, 'data');
  if (data === undefined || data === null) throw invalidRequest('no data provided');
  if (!isJsonObject(data)) {
    throw invalidRequest(
      `Field validation failed: error converting input for field "data": '' expected a map, got '${Array.isArray(data) ? 'slice' : typeof data}'`,
    );
  }
  const options = getOwn(body, 'options');
  let cas: number | undefined;
  if (options !== undefined && options !== null) {
    if (!isJsonObject(options)) {
      throw invalidRequest(
        `Field validation failed: error converting input for field "options": '' expected a map`,
      );
    }
    if (hasOwn(options, 'cas') && options['cas'] !== undefined) cas = parseCas(options['cas']);
  }
  return { data, cas };
}

const MAX_CUSTOM_KEYS = 64;
const MAX_CUSTOM_KEY_BYTES = 128;
const MAX_CUSTOM_VALUE_BYTES = 512;
const PREFIX = 'custom_metadata validation failed';
// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

function customValue(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value === null) return '';
  throw invalidRequest(`${PREFIX}: value for key ${JSON.stringify(key)} must be a string`);
}

export function validateCustomMetadata(map: Record<string, string>): void {
  const keys = Object.keys(map);
  if (keys.length > MAX_CUSTOM_KEYS) {
    throw invalidRequest(
      multiError(`${PREFIX}: payload must contain at most ${MAX_CUSTOM_KEYS} keys, provided ${keys.length}`),
    );
  }
  const errors: string[] = [];
  for (const key of keys) {
    const value = map[key] ?? '';
    const keyLen = Buffer.byteLength(key);
    const valueLen = Buffer.byteLength(value);
    const k = JSON.stringify(key);
    if (keyLen === 0 || keyLen > MAX_CUSTOM_KEY_BYTES) {
      errors.push(
        `${PREFIX}: length of key ${k} is ${keyLen} but must be 0 < len(key) <= ${MAX_CUSTOM_KEY_BYTES}`,
      );
    }
    if (valueLen === 0 || valueLen > MAX_CUSTOM_VALUE_BYTES) {
      errors.push(
        `${PREFIX}: length of value for key ${k} is ${valueLen} but must be 0 < len(value) <= ${MAX_CUSTOM_VALUE_BYTES}`,
      );
    }
    if (UNPRINTABLE.test(key)) errors.push(`${PREFIX}: key ${k} (${key}) contains unprintable characters`);
    if (UNPRINTABLE.test(value)) errors.push(`${PREFIX}: value for key ${k} contains unprintable characters`);
  }
  if (errors.length > 0) throw invalidRequest(multiError(...errors));
}

function customMetadataObject(value: unknown): JsonObject {
  if (!isJsonObject(value)) {
    throw invalidRequest(
      `Field validation failed: error converting input for field "custom_metadata": '' expected a map`,
    );
  }
  return value;
}

function toStringMap(raw: JsonObject, skipNulls: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(raw)) {
    if (skipNulls && raw[key] === null) continue;
    Object.defineProperty(out, key, { value: customValue(key, raw[key]), enumerable: true, writable: true });
  }
  return out;
}

function settingsInput(body: JsonObject): MetadataInput {
  const input: MetadataInput = {};
  if (present(body, 'max_versions')) input.maxVersions = nonNegativeInt('max_versions', body['max_versions']);
  if (present(body, 'cas_required')) input.casRequired = parseBoolField('cas_required', body['cas_required']);
  if (present(body, 'delete_version_after')) {
    const seconds = durationField('delete_version_after', body['delete_version_after']);
    if (seconds < 0) throw invalidRequest('delete_version_after cannot be negative');
    input.deleteVersionAfter = seconds;
  }
  return input;
}

/** POST metadata/:path: custom_metadata, when given, replaces the whole map. */
export function parseMetadataWrite(body: JsonObject): MetadataInput {
  const input = settingsInput(body);
  if (present(body, 'custom_metadata')) {
    const map = toStringMap(customMetadataObject(body['custom_metadata']), false);
    validateCustomMetadata(map);
    input.customMetadata = map;
  }
  return input;
}

/** PATCH metadata/:path: custom_metadata is merge-patched onto the current map (null removes a key). */
export function parseMetadataPatch(body: JsonObject, current: Record<string, string> | null): MetadataInput {
  const input = settingsInput(body);
  if (present(body, 'custom_metadata')) {
    const patch = customMetadataObject(body['custom_metadata']);
    validateCustomMetadata(toStringMap(patch, true));
    const merged = mergePatch(current ?? {}, patch);
    input.customMetadata = toStringMap(isJsonObject(merged) ? merged : {}, true);
  }
  return input;
}
