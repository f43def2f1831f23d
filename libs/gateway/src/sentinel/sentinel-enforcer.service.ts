import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, multiError, type Operation, type ResolvedToken } from '@coffer/contracts';
import type { SentinelInput } from '@coffer/sentinel';
import { AclEvaluator } from '../auth/acl-evaluator.service';
import { EntityCache } from '../auth/entity-cache.service';
import { qualifiedPolicyNames, tokenNamespace } from '../namespaces/namespace-scope';
import type { GatewayLogger } from '../gateway.logger';
import { GATEWAY_LOGGER } from '../gateway.options';
import type { ResolvedRoute } from '../routing/route-resolver';
import { identityValue, requestValue, tokenValue } from './sentinel-input';
import { SentinelPolicyStore, type LoadedPolicy } from './sentinel-policy-store.service';
import { decideVerdict, egpPathMatches, type PolicyOutcome } from './sentinel-verdict';

export interface SentinelCheck {
  routing: Extract<ResolvedRoute, { kind: 'route' }>;
  token: ResolvedToken | undefined;
  /** the path as matched against mounts (namespace header + path) */
  path: string;
  operation: Operation;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  clientAddress: string;
  /** the ACL grants sudo on the path: what a soft-mandatory override needs */
  sudo: boolean;
  wrapTtl: number | undefined;
}

const OVERRIDE_HEADERS = ['x-service-policy-override', 'x-vault-policy-override'];

/** X-Service-Policy-Override (or Vault's X-Vault-Policy-Override) set to true. */
export function overrideRequested(headers: IncomingHttpHeaders): boolean {
  return OVERRIDE_HEADERS.some((name) => {
    const value = headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    return text !== undefined && ['true', '1', 't'].includes(text.trim().toLowerCase());
  });
}

/**
 * Role and endpoint governing policies, run after the ACL allowed the request (Vault's order):
 * the RGPs named by the token's policies (token and identity) and the EGPs whose paths match,
 * every one of them. Root tokens are exempt, as in Vault; routes that work while sealed
 * (generate-root, unseal, ...) accept no policy, so a bad EGP can never lock everyone out; EGPs
 * govern unauthenticated requests only on auth mounts (logins). Returns the warnings of advisory
 * and overridden failures; throws a 403 naming each denying policy and its failed rules.
 */
@Injectable()
export class SentinelEnforcer {
  constructor(
    private readonly store: SentinelPolicyStore,
    private readonly acls: AclEvaluator,
    private readonly entities: EntityCache,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
  ) {}

  async enforce(check: SentinelCheck): Promise<string[]> {
    const { routing, token } = check;
    if (routing.route.allowSealed === true || check.path.startsWith('sys/generate-root')) return [];
    const names = token ? this.acls.policyNames(token) : [];
    if (token && this.acls.isRoot(token)) return [];
    const login = !token && routing.route.unauthenticated === true && routing.match.entry.table === 'auth';
    if (!token && !login) return [];
    const governing = await this.store.get();
    if (governing.rgps.size === 0 && governing.egps.length === 0) return [];

    const applicable: LoadedPolicy[] = [];
    // a token's policy names are those of its namespace, RGPs included
    for (const name of token ? qualifiedPolicyNames(tokenNamespace(token), names) : []) {
      const rgp = governing.rgps.get(name);
      if (rgp) applicable.push(rgp);
    }
    // an EGP governs its namespace and below, its paths relative to its namespace
    for (const egp of governing.egps) {
      if (!check.path.startsWith(egp.namespace)) continue;
      const relative = check.path.slice(egp.namespace.length);
      if (egp.paths.some((p) => egpPathMatches(p, relative))) applicable.push(egp);
    }
    if (applicable.length === 0) return [];

    const requested = overrideRequested(check.headers);
    const input = await this.input(check, applicable, requested);
    const outcomes: PolicyOutcome[] = applicable.map((p) => ({
      kind: p.kind,
      name: p.namespace + p.name,
      level: p.level,
      result: p.compiled
        ? p.compiled.evaluate(input)
        : { passed: false, rules: [], error: p.error ?? 'invalid' },
    }));
    const verdict = decideVerdict(outcomes, { requested, allowed: token !== undefined && check.sudo });
    for (const warning of verdict.warnings)
      this.logger.warn(`sentinel: ${warning} (${check.operation} ${check.path})`);
    if (verdict.denials.length > 0) {
      throw new DomainError('forbidden', multiError(...verdict.denials, 'permission denied'));
    }
    return verdict.warnings;
  }

  /** The data model, fetching token facts and identity only when an applicable policy reads them. */
  private async input(
    check: SentinelCheck,
    policies: LoadedPolicy[],
    override: boolean,
  ): Promise<SentinelInput> {
    const now = new Date();
    const uses = (g: 'token' | 'identity'): boolean => policies.some((p) => p.compiled?.uses(g) === true);
    const { token } = check;
    const [facts, entity] = await Promise.all([
      token && uses('token') ? this.store.facts(token.tokenRef) : null,
      token?.entityId && uses('identity') ? this.entities.facts(token.entityId) : null,
    ]);
    return {
      now,
      request: requestValue({
        path: check.path,
        operation: check.operation,
        data: check.body,
        remoteAddress: check.clientAddress,
        wrapTtl: check.wrapTtl,
        policyOverride: override,
      }),
      token: token ? tokenValue(token, facts, now.getTime()) : undefined,
      identity: identityValue(entity),
    };
  }
}

/** Adds the governing policies' warnings to an engine answer that carries warnings. */
export function withSentinelWarnings<T>(answer: T, warnings: readonly string[]): T {
  if (warnings.length === 0 || typeof answer !== 'object' || answer === null) return answer;
  const current = (answer as { warnings?: unknown }).warnings;
  const list = Array.isArray(current) ? (current as string[]) : [];
  return { ...answer, warnings: [...list, ...warnings] };
}
