import type { z } from 'zod';
import type { EngineRequest, EngineResponse, Operation } from '@coffer/contracts';

/**
 * What a plugin author writes: routes (Vault-style patterns, relative to the mount) with zod
 * schemas for their bodies and a handler per operation. The SDK matches, parses, answers the
 * routing errors (404 unsupported path, 405 unsupported operation) and hands each handler a
 * storage bound to the request's mount.
 */

/** Key-value storage of one mount, kept by the host behind its barrier. */
export interface PluginStorage {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** keys under `prefix`, relative to it; sub-folders end in "/" */
  list(prefix: string): Promise<string[]>;
}

export interface PluginCall<B> {
  request: EngineRequest;
  params: Record<string, string>;
  body: B;
  storage: PluginStorage;
}

export interface PluginOperation<S extends z.ZodType = z.ZodType> {
  body?: S;
  handler: (call: PluginCall<z.output<S>>) => Promise<EngineResponse>;
}

export interface PluginRoute {
  pattern: string;
  synopsis: string;
  /**
   * Its read and LIST show nothing secret, so sys/history/state may ask them at a past instant
   * (the handler's storage then answers as of that instant, read-only). Off by default.
   */
  history?: boolean;
  operations: Partial<Record<Operation, PluginOperation>>;
}

export interface PluginDefinition {
  name: string;
  routes: PluginRoute[];
}

/** Keeps each operation's body type tied to its handler. */
export function pluginOperation<S extends z.ZodType>(op: PluginOperation<S>): PluginOperation {
  return op;
}

export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}
