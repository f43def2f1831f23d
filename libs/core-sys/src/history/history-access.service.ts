import { Inject, Injectable } from '@nestjs/common';
import { CAP, compileAcl, ROOT_POLICY_NAME, type Acl, type AclResult } from '@coffer/acl';
import {
  historyContracts as c,
  invalidRequest,
  operationSchema,
  type Operation,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime, StoredEvent } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { normalisePolicyName, qualifiedPolicyName } from '../policies/policy.decider';
import { POLICY_LOG, policyStream } from '../policies/policy.events';
import { isUsable, type TokenState } from '../tokens/token.decider';
import { HistoryAccessIndex } from './history-access-index.service';
import { HistoryFolds, type IdentityAt } from './history-folds';
import { aclOf, HistoryPolicyCache, type ParsedPolicy } from './history-policy-cache';
import { HistoryStateService, type HistoryInstant } from './history-state.service';

/** policy versions read per query of their texts (the next chunk is read while one is parsed) */
const READ_CHUNK = 256;

/** One token as it stood at an instant, and what its policies allowed on a path. */
export interface TokenVerdict {
  accessor: string;
  /** the token existed, unrevoked, unexpired and not used up, at that instant */
  usable: boolean;
  namespace: string;
  entityId: string;
  tokenPolicies: string[];
  identityPolicies: string[];
  groupIds: string[];
  allowed: boolean;
  capabilities: string[];
  /** the policies whose own rules grant the operation, and those whose rules deny the path */
  grantedBy: string[];
  deniedBy: string[];
}

/** What one policy set allows on a path (the same for every token holding that set). */
interface Evaluation {
  allowed: boolean;
  capabilities: string[];
  grantedBy: string[];
  deniedBy: string[];
}

/** What one policy allows on the path on its own, and whether it grants or denies the operation. */
interface Alone {
  result: AclResult;
  verdict: 'granted' | 'denied' | 'neither';
}

const ROOT_ACL = compileAcl([], { root: true });
const EMPTY_ACL = compileAcl([]);

function aloneOf(acl: Acl, path: string, operation: Operation): Alone {
  const result = acl.allowOperation({ path, operation });
  const verdict = result.allowed
    ? 'granted'
    : ((acl.permissions(path, operation)?.bitmap ?? 0) & CAP.deny) !== 0
      ? 'denied'
      : 'neither';
  return { result, verdict };
}

/**
 * The gateway's evaluator on one policy set: the set's capabilities on the path, and which of
 * its policies grant the operation on their own and which hold a deny stanza matching it.
 * `alone` keeps each policy's own answer across the sets of one question, so a policy is looked
 * up once per question and a set holding one policy (the usual case) costs no lookup of its own.
 */
function evaluate(
  namespace: string,
  names: readonly string[],
  texts: ReadonlyMap<string, ParsedPolicy>,
  path: string,
  operation: Operation,
  alone: Map<string, Alone>,
): Evaluation {
  const present: string[] = [];
  const grantedBy: string[] = [];
  const deniedBy: string[] = [];
  for (const name of names) {
    const key = namespace + name;
    const own = texts.get(key);
    if (name !== ROOT_POLICY_NAME && !own) continue;
    if (own) present.push(key);
    let mine = alone.get(key);
    if (mine === undefined) {
      mine = aloneOf(name === ROOT_POLICY_NAME || !own ? ROOT_ACL : aclOf(own), path, operation);
      alone.set(key, mine);
    }
    if (mine.verdict === 'granted') grantedBy.push(name);
    else if (mine.verdict === 'denied') deniedBy.push(name);
  }
  const root = names.includes(ROOT_POLICY_NAME);
  const [only] = present;
  // a set of one policy answers as that policy alone; several are merged as the gateway merges them
  const result = root
    ? ROOT_ACL.allowOperation({ path, operation })
    : present.length === 1 && only !== undefined
      ? (alone.get(only) as Alone).result
      : present.length === 0
        ? EMPTY_ACL.allowOperation({ path, operation })
        : compileAcl(present.map((key) => (texts.get(key) as ParsedPolicy).policy)).allowOperation({
            path,
            operation,
          });
  return {
    allowed: result.allowed,
    capabilities: result.capabilities,
    grantedBy: grantedBy.sort(),
    deniedBy: deniedBy.sort(),
  };
}

function verdictOf(
  accessor: string,
  token: TokenState,
  identity: IdentityAt,
  evaluation: Evaluation,
  nowMs: number,
): TokenVerdict {
  const usable = isUsable(token, nowMs) && !identity.disabled;
  return {
    accessor,
    usable,
    namespace: token.namespace ?? '',
    entityId: token.entityId,
    tokenPolicies: token.policies,
    identityPolicies: identity.policies,
    groupIds: identity.groupIds,
    allowed: usable && evaluation.allowed,
    capabilities: evaluation.capabilities,
    grantedBy: evaluation.grantedBy,
    deniedBy: evaluation.deniedBy,
  };
}

/**
 * POST sys/history/explain and sys/history/access: the ACL evaluator of libs/acl (the gateway's)
 * fed with the tokens, entities, group memberships and policy texts as they were at an instant,
 * each folded from its stream up to that instant with the aggregates' own evolve functions.
 */
@Injectable()
export class HistoryAccessService {
  private readonly clock: () => Date;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: Pick<ServiceRuntime, 'clock'>,
    private readonly states: HistoryStateService,
    private readonly folds: HistoryFolds,
    private readonly index: HistoryAccessIndex,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
    private readonly parsed: HistoryPolicyCache,
  ) {
    this.clock = runtime.clock;
  }

  /** POST sys/history/explain. */
  async explainAt(
    body: RequestOf<typeof c.explain>['body'],
    namespace: string,
  ): Promise<ResponseOf<typeof c.explain>> {
    if (body.accessor === '') throw invalidRequest('missing accessor');
    const { instant, nowMs, operation } = await this.question(body);
    const v = await this.explain(body.accessor, namespace + body.path, operation, instant, nowMs, namespace);
    return {
      data: {
        accessor: body.accessor,
        path: body.path,
        operation,
        wal: instant.wal,
        recorded_at: instant.recordedAt?.toISOString() ?? null,
        found: v !== undefined,
        usable: v?.usable ?? false,
        allowed: v?.allowed ?? false,
        capabilities: v?.capabilities ?? ['deny'],
        namespace: v?.namespace ?? '',
        entity_id: v?.entityId ?? '',
        token_policies: v?.tokenPolicies ?? [],
        identity_policies: v?.identityPolicies ?? [],
        group_ids: v?.groupIds ?? [],
        granted_by: v?.grantedBy ?? [],
        denied_by: v?.deniedBy ?? [],
      },
    };
  }

  /** POST sys/history/access. */
  async accessAt(
    body: RequestOf<typeof c.access>['body'],
    namespace: string,
  ): Promise<ResponseOf<typeof c.access>> {
    const { instant, nowMs, operation } = await this.question(body);
    const { allowed, denying } = await this.allowedAt(
      namespace + body.path,
      operation,
      instant,
      nowMs,
      namespace,
    );
    const sorted = (xs: Iterable<string>) => [...new Set(xs)].filter((x) => x !== '').sort();
    return {
      data: {
        path: body.path,
        operation,
        wal: instant.wal,
        recorded_at: instant.recordedAt?.toISOString() ?? null,
        tokens: allowed.map((v) => ({
          accessor: v.accessor,
          entity_id: v.entityId,
          policies: [...new Set([...v.tokenPolicies, ...v.identityPolicies])].sort(),
          granted_by: v.grantedBy,
        })),
        accessors: sorted(allowed.map((v) => v.accessor)),
        entities: sorted(allowed.map((v) => v.entityId)),
        groups: sorted(allowed.flatMap((v) => v.groupIds)),
        policies: sorted(allowed.flatMap((v) => v.grantedBy)),
        denying_policies: sorted(denying),
      },
    };
  }

  private async question(body: { path: string; operation: string; at?: string | undefined }) {
    if (body.path === '') throw invalidRequest('missing path');
    const op = operationSchema.safeParse(body.operation);
    if (!op.success) throw invalidRequest(`unknown operation "${body.operation}"`);
    const instant = await this.states.instant(body.at);
    const given =
      body.at !== undefined && /^\d{4}-\d\d-\d\dT/.test(body.at) ? Date.parse(body.at) : undefined;
    const nowMs = given ?? (body.at ? instant.recordedAt?.getTime() : undefined) ?? this.clock().getTime();
    return { instant, nowMs, operation: op.data };
  }

  /**
   * One token's verdict at `instant` on `path` (full, namespace included): undefined when no
   * token of the namespace `within` (or below it) had that accessor then.
   */
  async explain(
    accessor: string,
    path: string,
    operation: Operation,
    instant: HistoryInstant,
    nowMs: number,
    within: string,
  ): Promise<TokenVerdict | undefined> {
    const token = await this.folds.tokenAt(accessor, instant.wal);
    if (!token || !(token.namespace ?? '').startsWith(within)) return undefined;
    const namespace = token.namespace ?? '';
    const identity = await this.folds.identityAt(token.entityId, instant.wal);
    const names = [...new Set([...token.policies, ...identity.policies])];
    const texts = await this.policiesAt([{ namespace, names }], instant.wal);
    const evaluation = evaluate(namespace, names, texts, path, operation, new Map());
    return verdictOf(accessor, token, identity, evaluation, nowMs);
  }

  /**
   * The tokens allowed at `instant` and the policies denying the path to any token then. The
   * access index lists the tokens that existed then (with their policies, entity and namespace),
   * the policy texts of the instant are read in one batch, each distinct policy set is evaluated
   * once, and only the tokens whose set allows the operation are folded (expiry, uses left).
   */
  async allowedAt(
    path: string,
    operation: Operation,
    instant: HistoryInstant,
    nowMs: number,
    within: string,
  ): Promise<{ allowed: TokenVerdict[]; denying: string[] }> {
    // a namespace sees its own tokens and its children's, never its parents' or siblings'
    const tokens = (await this.index.tokensAt(instant.wal)).filter((t) => t.namespace.startsWith(within));
    const identities = await this.folds.identitiesAt(
      tokens.map((t) => t.entityId),
      instant.wal,
    );
    const sets = new Map<string, { namespace: string; names: string[] }>();
    const setOf = tokens.map((t) => {
      const identity = identities.get(t.entityId);
      const names = [...new Set([...t.policies, ...(identity?.policies ?? [])])];
      const key = JSON.stringify([t.namespace, names]);
      if (!sets.has(key)) sets.set(key, { namespace: t.namespace, names });
      return key;
    });
    const texts = await this.policiesAt([...sets.values()], instant.wal);
    const alone = new Map<string, Alone>();
    const evaluations = new Map(
      [...sets].map(([key, set]) => [key, evaluate(set.namespace, set.names, texts, path, operation, alone)]),
    );
    const denying = new Set<string>();
    const candidates: { accessor: string; evaluation: Evaluation; identity: IdentityAt }[] = [];
    tokens.forEach((t, i) => {
      const evaluation = evaluations.get(setOf[i] ?? '');
      const identity = identities.get(t.entityId);
      if (!evaluation || !identity) return;
      for (const name of evaluation.deniedBy) denying.add(name);
      if (evaluation.allowed && !identity.disabled)
        candidates.push({ accessor: t.accessor, evaluation, identity });
    });
    const folded = await this.folds.tokensAt(
      candidates.map((c) => c.accessor),
      instant.wal,
    );
    const allowed: TokenVerdict[] = [];
    for (const c of candidates) {
      const token = folded.get(c.accessor);
      const v = token && verdictOf(c.accessor, token, c.identity, c.evaluation, nowMs);
      if (v?.allowed) allowed.push(v);
    }
    return { allowed, denying: [...denying] };
  }

  /**
   * The policy texts of these sets as of event `wal`, parsed, keyed by namespace + name as the
   * sets name them. Root and names with a "/" are no stored policy; a policy that did not exist
   * then (or does not parse) contributes nothing, as it would have live.
   */
  private async policiesAt(
    sets: readonly { namespace: string; names: readonly string[] }[],
    wal: number,
  ): Promise<Map<string, ParsedPolicy>> {
    const wanted = new Map<string, { qualified: string; root: boolean }>();
    for (const { namespace, names } of sets) {
      for (const name of names) {
        if (name === ROOT_POLICY_NAME || name.includes('/')) continue;
        const normalised = normalisePolicyName(name);
        wanted.set(namespace + name, {
          qualified: qualifiedPolicyName(namespace, normalised),
          // "Root" and the like read as root's empty text, as GET sys/policies/acl/Root does
          root: normalised === ROOT_POLICY_NAME,
        });
      }
    }
    const stored = [...wanted.values()].filter((w) => !w.root).map((w) => w.qualified);
    const versions = await this.index.policyVersionsAt(stored, wal);
    const out = new Map<string, ParsedPolicy>();
    // a logged version never changes: parsed once, kept by its WAL (the indexer parses ahead)
    const toRead = new Map<number, string[]>();
    for (const [key, w] of wanted) {
      const version = w.root ? undefined : versions.get(policyStream(w.qualified));
      const policy = w.root
        ? this.parsed.parseText(key, '')
        : version?.written
          ? this.parsed.get(version.wal)
          : null;
      if (policy) out.set(key, policy);
      else if (policy === undefined && version)
        toRead.set(version.wal, [...(toRead.get(version.wal) ?? []), key]);
    }
    // the texts not parsed yet, in chunks read together: one is parsed while the next arrives
    const wals = [...toRead.keys()];
    const chunks: Promise<StoredEvent[]>[] = [];
    for (let i = 0; i < wals.length; i += READ_CHUNK) {
      const read = this.store.readWals(wals.slice(i, i + READ_CHUNK));
      read.catch(() => undefined); // awaited below, in order: a failure there is the one reported
      chunks.push(read);
    }
    for (const chunk of chunks) {
      for (const event of await chunk) {
        const decoded = POLICY_LOG.decode(event);
        if (decoded.type !== 'PolicyWritten') continue;
        for (const key of toRead.get(event.wal) ?? []) {
          const policy = this.parsed.parse(key, event.wal, decoded.data.policy);
          if (policy) out.set(key, policy);
        }
      }
    }
    return out;
  }
}
