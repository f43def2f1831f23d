import { isJsonObject, setOwn, type JsonObject } from '@coffer/contracts';

/** Vault caps the walk whatever depth is asked, so a deeply nested secret cannot exhaust the stack. */
export const MAX_SUBKEYS_DEPTH = 100;

/**
 * The structure of a secret with every value replaced by null. Non-empty objects are walked; an
 * empty object, any other value, and any object at `depth` (1 = top-level keys only; 0 = no
 * limit) become null leaves. Returns a new object; the input is not modified.
 */
export function subkeys(data: JsonObject, depth: number): JsonObject {
  const limit = depth > 0 ? Math.min(depth, MAX_SUBKEYS_DEPTH) : MAX_SUBKEYS_DEPTH;
  const walk = (node: JsonObject, level: number): JsonObject => {
    const out: JsonObject = {};
    for (const key of Object.keys(node)) {
      const value = node[key];
      const descend = isJsonObject(value) && Object.keys(value).length > 0 && level < limit;
      setOwn(out, key, descend ? walk(value, level + 1) : null);
    }
    return out;
  };
  return walk(data, 1);
}
