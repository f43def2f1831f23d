import { z } from 'zod';

/**
 * Helpers for secret data, which is caller-controlled JSON: keys such as "__proto__" or
 * "constructor" are ordinary data here, so objects are built with defineProperty and read with
 * own-property checks only (never through the prototype chain).
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function getOwn(source: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(source, key) ? source[key] : undefined;
}

export function hasOwn(source: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(source, key);
}

/**
 * A JSON object, passed through as the very object received. z.record would copy it with plain
 * assignment, which turns an own "__proto__" key into a prototype change and so drops it.
 */
export const jsonObjectSchema = z
  .custom<JsonObject>(isJsonObject, { message: 'expected an object' })
  .meta({ type: 'object', additionalProperties: true });

const isStringMap = (value: unknown): value is Record<string, string> =>
  isJsonObject(value) && Object.values(value).every((v) => typeof v === 'string');

/** map[string]string with the caller's keys (e.g. custom_metadata), passed through like jsonObjectSchema. */
export const stringMapSchema = z
  .custom<Record<string, string>>(isStringMap, { message: 'expected an object of strings' })
  .meta({ type: 'object', additionalProperties: { type: 'string' } });
