import { readFileSync } from 'node:fs';
import { HclParseError, expressionToValue, hclToObject, parseHcl, type HclBody } from '@coffer/hcl';
import { applyEnvOverrides, DEV_CLUSTER_ADDRESS, type Env } from './config-env';
import { ConfigError, zodIssues } from './config-errors';
import {
  rawServerConfigSchema,
  type ListenerConfig,
  type ListenerPurpose,
  type ServerConfig,
} from './server-config.schema';

/** Blocks that appear at most once and take no label. */
const SINGLE_BLOCKS = new Set(['nats', 'controller', 'telemetry']);

export interface ParseServerConfigOptions {
  /** file name, for error messages and ServerConfig.source */
  source?: string;
  /** COFFER_* overrides; none when omitted */
  env?: Env;
}

/**
 * Turns the HCL tree into the file-shaped object the schema validates: `listener "tcp" {...}`
 * -> listener[] with `type`, `storage "postgresql" {...}` -> storage with `type`,
 * `service "kv" {...}` -> service.kv, label-less blocks -> objects. Structural problems (missing
 * labels, repeated single blocks) are collected with their line numbers.
 */
export function hclToRawConfig(body: HclBody, issues: string[]): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const listeners: unknown[] = [];
  const services: Record<string, unknown> = {};
  const at = (line: number) => ` (line ${line})`;
  for (const item of body.items) {
    const line = item.pos.line;
    if (item.key === 'dev') {
      issues.push(`dev: dev mode is what you get without a config file; it cannot be configured${at(line)}`);
      continue;
    }
    if (item.type === 'Attribute') {
      if (Object.hasOwn(raw, item.key) || item.key === 'listener' || item.key === 'service') {
        issues.push(`${item.key}: defined more than once or with the wrong syntax${at(line)}`);
        continue;
      }
      raw[item.key] = expressionToValue(item.value);
      continue;
    }
    const blockBody = hclToObject(item.body);
    const [label, ...extra] = item.labels;
    switch (item.key) {
      case 'listener':
      case 'storage':
      case 'service': {
        if (label === undefined || extra.length > 0) {
          issues.push(
            `${item.key}: needs exactly one label, e.g. ${item.key} "${exampleLabel(item.key)}" { ... }${at(line)}`,
          );
          continue;
        }
        if (item.key === 'listener') listeners.push({ type: label, ...blockBody });
        else if (item.key === 'service') {
          if (Object.hasOwn(services, label))
            issues.push(`service.${label}: defined more than once${at(line)}`);
          else services[label] = blockBody;
        } else if (Object.hasOwn(raw, 'storage'))
          issues.push(`storage: only one storage block is allowed${at(line)}`);
        else raw.storage = { type: label, ...blockBody };
        continue;
      }
      default:
        if (SINGLE_BLOCKS.has(item.key) && item.labels.length > 0) {
          issues.push(`${item.key}: takes no label${at(line)}`);
          continue;
        }
        if (Object.hasOwn(raw, item.key)) {
          issues.push(`${item.key}: only one ${item.key} block is allowed${at(line)}`);
          continue;
        }
        raw[item.key] = blockBody;
    }
  }
  if (listeners.length > 0) raw.listener = listeners;
  if (Object.keys(services).length > 0) raw.service = services;
  return raw;
}

function exampleLabel(key: string): string {
  return key === 'listener' ? 'tcp' : key === 'storage' ? 'postgresql' : 'kv';
}

/** Validates a raw (file-shaped) configuration after applying environment overrides. */
export function validateRawConfig(
  raw: Record<string, unknown>,
  options: ParseServerConfigOptions = {},
): ServerConfig {
  const withEnv = options.env ? applyEnvOverrides(raw, options.env) : raw;
  const result = rawServerConfigSchema.safeParse(withEnv);
  if (!result.success) throw new ConfigError(zodIssues(result.error), options.source);
  return options.source === undefined ? result.data : { ...result.data, source: options.source };
}

/** Parses HCL config text. Throws ConfigError listing every problem. */
export function parseServerConfig(text: string, options: ParseServerConfigOptions = {}): ServerConfig {
  const issues: string[] = [];
  let raw: Record<string, unknown>;
  try {
    raw = hclToRawConfig(parseHcl(text), issues);
  } catch (e) {
    if (e instanceof HclParseError) throw new ConfigError([e.message], options.source);
    throw e;
  }
  if (issues.length > 0) {
    // Report schema problems together with the structural ones.
    const schema = rawServerConfigSchema.safeParse(options.env ? applyEnvOverrides(raw, options.env) : raw);
    throw new ConfigError([...issues, ...(schema.success ? [] : zodIssues(schema.error))], options.source);
  }
  return validateRawConfig(raw, options);
}

/** Reads and parses a server config file (HCL). Throws ConfigError. */
export function loadServerConfigFile(path: string, options: { env?: Env } = {}): ServerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`cannot read config file: ${(e as Error).message}`], path);
  }
  return parseServerConfig(text, { source: path, env: options.env });
}

/** The first listener with a purpose; throws ConfigError when there is none. */
/**
 * Where replication listens for secondaries and what it tells them: the listener with purpose
 * "cluster" (dev mode: COFFER_DEV_CLUSTER_ADDRESS, default 127.0.0.1:8201), advertised as
 * `cluster_addr` when set.
 */
export function clusterAddressOf(config: ServerConfig): { listen: string; advertise: string } {
  const listen =
    config.listeners.find((x) => x.purpose.includes('cluster'))?.address ??
    config.dev?.clusterAddress ??
    DEV_CLUSTER_ADDRESS;
  return { listen, advertise: config.clusterAddr ?? listen };
}

export function listenerFor(config: ServerConfig, purpose: ListenerPurpose): ListenerConfig {
  const l = config.listeners.find((x) => x.purpose.includes(purpose));
  if (!l) throw new ConfigError([`a listener with purpose = "${purpose}" is required`], config.source);
  return l;
}

/**
 * What the contract requires of a cluster's config file: a controller block, a listener with
 * purpose "api" and one with purpose "ops". Dev mode (no file) brings its own. Throws ConfigError.
 */
export function requireClusterBlocks(config: ServerConfig): void {
  if (config.dev !== null) return;
  const issues: string[] = [];
  if (!config.controllerDefined)
    issues.push(
      'a controller block is required, e.g. controller { graceful_shutdown_wait_duration = "10s" }',
    );
  for (const purpose of ['api', 'ops'] as const) {
    if (!config.listeners.some((l) => l.purpose.includes(purpose)))
      issues.push(`a listener with purpose = "${purpose}" is required`);
  }
  if (issues.length > 0) throw new ConfigError(issues, config.source);
}
