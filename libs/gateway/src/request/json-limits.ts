import { invalidRequest } from '@coffer/contracts';

/** Vault's per-listener JSON limits (max_json_* in the listener block). */
export interface JsonLimits {
  maxDepth: number;
  /** bytes of one string (keys included), as sent, escapes counted as written */
  maxStringValueLength: number;
  maxObjectEntryCount: number;
  maxArrayElementCount: number;
}

export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxDepth: 300,
  maxStringValueLength: 1024 * 1024,
  maxObjectEntryCount: 10_000,
  maxArrayElementCount: 10_000,
});

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * A streaming pre-scan of a JSON body, fed chunk by chunk as it arrives, that refuses (400) a body
 * over the limits before JSON.parse runs on it: JSON.parse of a deep, wide or huge document holds
 * the event loop (and deep nesting overflows the stack of whoever stringifies it later). It reads
 * only structure (strings, brackets, commas); malformed JSON is left to JSON.parse.
 */
export class JsonLimitScanner {
  /** per open container: 1 = object, 2 = array */
  private readonly kinds: number[] = [];
  /** per open container: entries seen (0 while empty) */
  private readonly counts: number[] = [];
  private inString = false;
  private escaped = false;
  private stringLength = 0;

  constructor(private readonly limits: JsonLimits) {}

  feed(chunk: Uint8Array): void {
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          continue;
        }
        if (++this.stringLength > this.limits.maxStringValueLength) {
          throw refuse('JSON string value exceeds allowed length', 'max_json_string_value_length');
        }
        continue;
      }
      if (b === SP || b === TAB || b === LF || b === CR) continue;
      if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        this.kinds.pop();
        this.counts.pop();
        continue;
      }
      if (b === COMMA) {
        this.count();
        continue;
      }
      const top = this.counts.length - 1;
      // the first value of a container: count it once (commas count the following ones)
      if (top >= 0 && this.counts[top] === 0) this.count();
      if (b === QUOTE) {
        this.inString = true;
        this.stringLength = 0;
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        if (this.kinds.length >= this.limits.maxDepth) {
          throw refuse('JSON input exceeds allowed nesting depth', 'max_json_depth');
        }
        this.kinds.push(b === OPEN_OBJECT ? 1 : 2);
        this.counts.push(0);
      }
    }
  }

  private count(): void {
    const top = this.counts.length - 1;
    if (top < 0) return;
    const count = (this.counts[top] ?? 0) + 1;
    this.counts[top] = count;
    if (this.kinds[top] === 1) {
      // an object entry is a key and a value: the key's string counts, the ':' does not
      if (count > this.limits.maxObjectEntryCount) {
        throw refuse('JSON object exceeds allowed entry count', 'max_json_object_entry_count');
      }
    } else if (count > this.limits.maxArrayElementCount) {
      throw refuse('JSON array exceeds allowed element count', 'max_json_array_element_count');
    }
  }
}

const refuse = (what: string, setting: string) =>
  invalidRequest(`error parsing JSON: ${what} (listener setting ${setting})`);

/** Checks a whole body at once (bodies that did not arrive through a stream). */
export function checkJsonLimits(body: Uint8Array, limits: JsonLimits): void {
  new JsonLimitScanner(limits).feed(body);
}
