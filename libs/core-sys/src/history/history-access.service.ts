import { Inject, Injectable } from '@nestjs/common';
import { CAP, compileAcl, parsePolicy, ROOT_POLICY_NAME, type Policy } from '@coffer/acl';
import {
  historyContracts as c,
  invalidRequest,
  operationSchema,
  type Operation,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { EventLogReader, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { isUsable, type TokenState } from '../tokens/token.decider';
import { HistoryFolds } from './history-folds';
import { HistoryStateService, type HistoryInstant } from './history-state.service';

const TOKEN_PREFIX = 'token/';

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

/**
 * POST sys/history/explain and sys/history/access: the ACL evaluator of libs/acl (the gateway's)
 * fed with the tokens, entities, group memberships and policy texts as they were at an instant,
 * each folded from its stream up to that instant with the aggregates' own evolve functions.
 */
@Injectable()
export class HistoryAccessService {
  private readonly log: string;
  private readonly clock: () => Date;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: Pick<ServiceRuntime, 'schema' | 'clock'>,
    private readonly reader: EventLogReader,
    private readonly states: HistoryStateService,
    private readonly folds: HistoryFolds,
  ) {
    this.log = runtime.schema;
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
    const verdicts = await this.everyToken(namespace + body.path, operation, instant, nowMs, namespace);
    const allowed = verdicts.filter((v) => v.allowed);
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
        denying_policies: sorted(verdicts.flatMap((v) => v.deniedBy)),
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
  ) {
    const token = await this.folds.tokenAt(accessor, instant.wal);
    if (!token || !(token.namespace ?? '').startsWith(within)) return undefined;
    return this.verdict(accessor, token, path, operation, instant.wal, nowMs);
  }

  /** Every token that existed at `instant`, with its verdict; the caller filters the allowed ones. */
  async everyToken(
    path: string,
    operation: Operation,
    instant: HistoryInstant,
    nowMs: number,
    within: string,
  ) {
    const streams = await this.reader.lastTypes(this.log, TOKEN_PREFIX, instant.wal);
    const out: TokenVerdict[] = [];
    for (const { stream, type } of streams) {
      if (type === 'TokenRevoked') continue;
      const accessor = stream.slice(TOKEN_PREFIX.length);
      const token = await this.folds.tokenAt(accessor, instant.wal);
      // a namespace sees its own tokens and its children's, never its parents' or siblings'
      if (token && (token.namespace ?? '').startsWith(within))
        out.push(await this.verdict(accessor, token, path, operation, instant.wal, nowMs));
    }
    return out;
  }

  private async verdict(
    accessor: string,
    token: TokenState,
    path: string,
    operation: Operation,
    wal: number,
    nowMs: number,
  ): Promise<TokenVerdict> {
    const namespace = token.namespace ?? '';
    const identity = await this.folds.identityAt(token.entityId, wal);
    const names = [...new Set([...token.policies, ...identity.policies])];
    const policies = await this.policiesAt(names, namespace, wal);
    const usable = isUsable(token, nowMs) && !identity.disabled;
    const acl = compileAcl(policies, { root: names.includes(ROOT_POLICY_NAME) });
    const result = acl.allowOperation({ path, operation });
    const grantedBy: string[] = [];
    const deniedBy: string[] = [];
    for (const name of names) {
      const own = policies.find((p) => p.name === namespace + name);
      if (name !== ROOT_POLICY_NAME && !own) continue;
      const alone = compileAcl(name === ROOT_POLICY_NAME ? [] : [own], {
        root: name === ROOT_POLICY_NAME,
      });
      if (alone.allowOperation({ path, operation }).allowed) grantedBy.push(name);
      else if (((alone.permissions(path, operation)?.bitmap ?? 0) & CAP.deny) !== 0) deniedBy.push(name);
    }
    return {
      accessor,
      usable,
      namespace,
      entityId: token.entityId,
      tokenPolicies: token.policies,
      identityPolicies: identity.policies,
      groupIds: identity.groupIds,
      allowed: usable && result.allowed,
      capabilities: result.capabilities,
      grantedBy: grantedBy.sort(),
      deniedBy: deniedBy.sort(),
    };
  }

  private async policiesAt(names: readonly string[], namespace: string, wal: number): Promise<Policy[]> {
    const out: Policy[] = [];
    for (const name of names) {
      if (name === ROOT_POLICY_NAME || name.includes('/')) continue;
      try {
        const { policy } = await this.states.policyAt(wal, namespace, name);
        out.push(parsePolicy(namespace + name, policy));
      } catch {
        // a policy that did not exist then contributes nothing, as it would have live
      }
    }
    return out;
  }
}
