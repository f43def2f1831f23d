import { DomainError } from '@coffer/contracts';

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/** JSON to bytes; `undefined` (a void response) travels as an empty payload. */
export function encodeJson(value: unknown): Uint8Array {
  const text = JSON.stringify(value);
  // Buffer.from takes small strings from Node's shared pool: cheaper than TextEncoder per message.
  return text === undefined ? EMPTY : Buffer.from(text, 'utf8');
}

export function decodeJson(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes));
}

/** Server side: a payload that is not JSON is the caller's mistake, not a bug. */
export function decodeRequest(bytes: Uint8Array): unknown {
  try {
    return decodeJson(bytes);
  } catch {
    throw new DomainError('invalid_request', 'request payload is not valid JSON');
  }
}

/** A deep copy through JSON, as a network hop would make (in-process transport). */
export function roundTrip<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}
