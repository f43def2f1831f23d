import { z } from 'zod';
import { weakInt, weakString } from '../fields';
import { jsonObjectSchema } from '../fields/json-object';
import { defineContract } from '../contract';
import { invalidRequest } from '../domain-errors';
import { engineContract, type OperationDef, type RouteDef } from '../routes';

/**
 * sys/history/*: proofs over the event logs a client checks with no trust in the server
 * (docs/history.md). Each service's log (core_sys, kv, pki, ...) is its own Merkle tree, RFC 9162
 * shapes; `log` picks one (default core_sys). Hashes and signatures are lower-case hex.
 */
const hex = z.string();

const logField = weakString({
  default: 'core_sys',
  description: "The service log's schema (core_sys, kv, ...).",
});

export const historySignedTreeHead = z.object({
  log: z.string(),
  tree_size: z.number().int(),
  root_hash: hex,
  timestamp: z.string(),
  signature: hex,
});

export const historyEntryData = z.object({
  wal: z.number().int(),
  stream: z.string(),
  stream_version: z.number().int(),
  type: z.string(),
  schema_version: z.number().int(),
  /** base64 of the barrier ciphertext, as stored */
  payload: z.string(),
  prev_hash: hex,
  hash: hex,
  recorded_at: z.string(),
});

const historyStatePath = z.object({ path: z.string().default('') }).prefault({});
const historyStateAt = weakString({
  description: 'RFC 3339 time, or a WAL index of the core_sys log (default: now).',
});
const historyStateData = z.object({
  path: z.string(),
  /** the last core_sys event at that instant */
  wal: z.number().int(),
  recorded_at: z.string().nullable(),
  /** what the live read (or LIST) of `path` answered then (its `data`) */
  state: jsonObjectSchema,
  /** an engine's path: the last event of the engine's own log folded into `state` */
  engine_wal: z.number().int().optional(),
});

export const historyContracts = {
  key: engineContract('core.sys.history.key', {
    data: z.object({
      algorithm: z.literal('ed25519'),
      public_key: z.string(),
      key_id: hex,
      created_at: z.string(),
    }),
  }),
  logs: engineContract('core.sys.history.logs', {
    data: z.object({ keys: z.array(z.string()) }),
  }),
  treeHead: engineContract('core.sys.history.tree-head', {
    query: z.object({ log: logField, tree_size: weakInt() }).prefault({}),
    data: historySignedTreeHead,
  }),
  proof: engineContract('core.sys.history.proof', {
    query: z
      .object({
        log: logField,
        wal: weakInt({ description: 'The WAL index of the event to prove.' }),
        tree_size: weakInt({ description: 'The tree to prove it in (default: the current one).' }),
      })
      .prefault({}),
    data: z.object({
      log: z.string(),
      leaf_index: z.number().int(),
      tree_size: z.number().int(),
      audit_path: z.array(hex),
      root_hash: hex,
      entry: historyEntryData,
      signed_tree_head: historySignedTreeHead,
    }),
  }),
  consistency: engineContract('core.sys.history.consistency', {
    query: z
      .object({
        log: logField,
        from: weakInt({ description: 'The size of the older tree.' }),
        to: weakInt({ description: 'The size of the newer tree (default: the current one).' }),
      })
      .prefault({}),
    data: z.object({
      log: z.string(),
      first: z.number().int(),
      second: z.number().int(),
      first_root: hex,
      second_root: hex,
      proof: z.array(hex),
      signed_tree_head: historySignedTreeHead,
    }),
  }),
  changes: engineContract('core.sys.history.changes', {
    query: z
      .object({
        log: weakString({ description: 'One log only (core_sys, kv, ...); default: every log.' }),
        path_prefix: weakString({
          default: '',
          description: 'Only changes made by requests on paths starting with this (from the root namespace).',
        }),
        since: weakString({ description: 'RFC 3339: changes recorded at or after this time.' }),
        until: weakString({ description: 'RFC 3339: changes recorded at or before this time.' }),
        after: weakString({ description: 'The `next` of the previous page.' }),
        limit: weakInt({ description: `Changes per page (default 100, at most 1000).` }),
      })
      .prefault({}),
    data: z.object({
      changes: z.array(
        z.object({
          log: z.string(),
          wal: z.number().int(),
          time: z.string(),
          type: z.string(),
          stream: z.string(),
          /** the request's path from the root namespace; null when no request caused it */
          path: z.string().nullable(),
          accessor: z.string().nullable(),
          entity_id: z.string().nullable(),
          request_id: z.string().nullable(),
        }),
      ),
      /** pass as `after` for the next page; null on the last one */
      next: z.string().nullable(),
    }),
  }),
  state: engineContract('core.sys.history.state', {
    params: historyStatePath,
    query: z
      .object({
        at: historyStateAt,
        version: weakString({
          description: 'kv v2 data/<key>: the version (default: the current one then).',
        }),
      })
      .prefault({}),
    data: historyStateData,
  }),
  /** LIST (GET ?list=true): what the live LIST of `path` answered at an instant */
  stateList: engineContract('core.sys.history.state-list', {
    params: historyStatePath,
    query: z.object({ at: historyStateAt }).prefault({}),
    /** `keys` repeats the state's keys at the top, where a LIST answers them (and is paginated) */
    data: historyStateData.extend({ keys: z.array(z.string()) }),
  }),
  explain: engineContract('core.sys.history.explain', {
    body: z
      .object({
        accessor: weakString({ default: '' }),
        path: weakString({ default: '' }),
        operation: weakString({ default: 'read' }),
        at: weakString(),
      })
      .prefault({}),
    data: z.object({
      accessor: z.string(),
      path: z.string(),
      operation: z.string(),
      wal: z.number().int(),
      recorded_at: z.string().nullable(),
      /** a token with this accessor existed (created, not revoked) then */
      found: z.boolean(),
      usable: z.boolean(),
      allowed: z.boolean(),
      capabilities: z.array(z.string()),
      namespace: z.string(),
      entity_id: z.string(),
      token_policies: z.array(z.string()),
      identity_policies: z.array(z.string()),
      group_ids: z.array(z.string()),
      granted_by: z.array(z.string()),
      denied_by: z.array(z.string()),
    }),
  }),
  access: engineContract('core.sys.history.access', {
    body: z
      .object({
        path: weakString({ default: '' }),
        operation: weakString({ default: 'read' }),
        at: weakString(),
      })
      .prefault({}),
    data: z.object({
      path: z.string(),
      operation: z.string(),
      wal: z.number().int(),
      recorded_at: z.string().nullable(),
      tokens: z.array(
        z.object({
          accessor: z.string(),
          entity_id: z.string(),
          policies: z.array(z.string()),
          granted_by: z.array(z.string()),
        }),
      ),
      accessors: z.array(z.string()),
      entities: z.array(z.string()),
      groups: z.array(z.string()),
      policies: z.array(z.string()),
      denying_policies: z.array(z.string()),
    }),
  }),
};

/**
 * State at a time of an engine's own paths (`<service>.history.state`): only the engine can decode
 * its log, so core-sys resolves the mount as it was then (its own history) and asks the engine's
 * service. `values` is set only when core-sys checked that the caller may read the live path now.
 */
export const engineHistoryStateRequest = z.object({
  mount_uuid: z.string().min(1),
  /** the mount's type and options then (kv: options.version picks v1 or v2) */
  mount_type: z.string(),
  mount_options: z.record(z.string(), z.string()).default({}),
  /** the mount's namespace ("" for the root; engines keyed by namespace, as oidc, read it) */
  namespace: z.string().default(''),
  /** the path inside the mount ("metadata/a/b", "config", "data/a/b") */
  path: z.string(),
  /** the read's query then (kv: version; `list: "true"` for a LIST) */
  query: z.record(z.string(), z.string()).default({}),
  /** RFC 3339: the instant; absent = now. Events recorded at or before it are folded. */
  at: z.string().optional(),
  /** the caller may read the live path now: past secret values may be returned */
  values: z.boolean().default(false),
});
export const engineHistoryStateResponse = z.object({
  /** false: the live read answered 404 then (`state` is its body, if any) */
  found: z.boolean(),
  /** the last event of the engine's log folded into the answer (0 = none) */
  wal: z.number().int().nonnegative(),
  state: jsonObjectSchema.nullable(),
  warnings: z.array(z.string()).default([]),
});

export type EngineHistoryStateRequest = z.infer<typeof engineHistoryStateRequest>;
export type EngineHistoryStateResponse = z.infer<typeof engineHistoryStateResponse>;

/**
 * What an engine answering `<service>.history.state` starts from: the path inside the mount
 * without its outer slashes, and the instant (`at`, else now from the engine's clock).
 */
export function engineHistoryQuestion(
  req: Pick<EngineHistoryStateRequest, 'path' | 'at'>,
  clock: () => Date,
): { path: string; at: Date } {
  const at = req.at === undefined ? clock() : new Date(req.at);
  if (Number.isNaN(at.getTime())) throw invalidRequest('at must be an RFC 3339 time');
  return { path: req.path.replace(/^\/+|\/+$/g, ''), at };
}

/** The contract an engine's service answers to rebuild one of its paths at an instant. */
export function engineHistoryState(service: string) {
  return defineContract(`${service}.history.state`, engineHistoryStateRequest, engineHistoryStateResponse);
}

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const c = historyContracts;

/** Root namespace only: the logs are the whole cluster's. Proofs show stream names, hence sudo. */
export const historyRouteDefs: RouteDef[] = [
  {
    pattern: 'history/key',
    synopsis: 'The Ed25519 public key that signs the tree heads.',
    restricted: true,
    operations: { read: op(c.key, 'Read the tree-head signing key') },
  },
  {
    pattern: 'history/logs',
    synopsis: 'The event logs with a Merkle tree (one per service schema).',
    restricted: true,
    sudo: true,
    operations: { read: op(c.logs, 'List the logs'), list: op(c.logs, 'List the logs') },
  },
  {
    pattern: 'history/tree-head',
    synopsis: 'A signed tree head of a log (current, or of an earlier size).',
    restricted: true,
    sudo: true,
    operations: { read: op(c.treeHead, 'Read a signed tree head') },
  },
  {
    pattern: 'history/proof',
    synopsis: "An inclusion proof of one event (RFC 9162 audit path) in a log's Merkle tree.",
    description: 'The leaf is SHA-256(0x00 || the event chain hash); the answer carries the event as stored.',
    restricted: true,
    sudo: true,
    operations: { read: op(c.proof, 'Prove an event is in the log') },
  },
  {
    pattern: 'history/consistency',
    synopsis: 'A consistency proof between two sizes of a log (RFC 9162).',
    restricted: true,
    sudo: true,
    operations: { read: op(c.consistency, 'Prove a tree extends an older one') },
  },
  {
    pattern: 'history/changes',
    synopsis: 'Who changed what, when: the events of every log with their actor, values never included.',
    description:
      'Paginated with after/limit and next; filtered by path_prefix (the request path), since and until (RFC 3339) and log.',
    restricted: true,
    sudo: true,
    operations: { read: op(c.changes, 'Read the change feed') },
  },
  {
    pattern: 'history/state/:path*',
    synopsis: 'What a read answered at an instant, rebuilt from the log.',
    description:
      'sys/mounts, sys/auth, sys/policies/acl, sys/policies/acl/<name>, auth/token/lookup-accessor/<accessor>, identity/entity/id/<id>, identity/group/id/<id>; of kv v2 mounts config, metadata/<key> and data/<key>?version= (values only while not destroyed, to callers who may read them now); of pki mounts roles, roles/<name>, config/urls, config/crl, cert/ca, cert/ca_chain, ca/pem and ca_chain; of ssh mounts roles, roles/<name>, config/ca and keys/<name>; of directory mounts config, roles, roles/<name>, library and library/<name>; of cloud-a mounts config, roles and roles/<name>; of cloud-b mounts config/root, config/lease, roles and roles/<name>; in the caller namespace. LIST (or ?list=true): sys/policies/acl, kv v2 metadata/<folder>, kv v1 <folder>, the roles of pki, ssh, directory, cloud-a and cloud-b mounts, directory library.',
    sudo: true,
    operations: {
      read: op(c.state, 'Read a past state'),
      list: op(c.stateList, 'List as a past LIST answered'),
    },
  },
  {
    pattern: 'history/explain',
    synopsis: 'What one token (by accessor) could do on a path at an instant, and which policies decided it.',
    sudo: true,
    operations: {
      update: op(c.explain, 'Explain a past decision'),
      create: op(c.explain, 'Explain a past decision'),
    },
  },
  {
    pattern: 'history/access',
    synopsis: 'Who could perform an operation on a path at an instant: tokens, entities, groups, policies.',
    sudo: true,
    operations: {
      update: op(c.access, 'Who could access a path'),
      create: op(c.access, 'Who could access a path'),
    },
  },
];
