import { getOwn, hasOwn, isJsonObject, setOwn, type JsonObject } from '@coffer/contracts';

/**
 * JSON merge patch (RFC 7396), as used by kv v2 PATCH: an object patch merges key by key, a null
 * member removes the key, any other value replaces the target. Inputs are not modified.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = {};
  if (isJsonObject(target)) {
    for (const key of Object.keys(target)) setOwn(result, key, target[key]);
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      if (hasOwn(result, key)) delete result[key];
      continue;
    }
    setOwn(result, key, mergePatch(getOwn(result, key), value));
  }
  return result;
}
