import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Acl } from '@coffer/acl';
import {
  DomainError,
  encodeContext,
  cidrAllows,
  permissionDenied,
  type EngineRequest,
  type Operation,
  type ResolvedToken,
} from '@coffer/contracts';
import { activeTraceId, describeCause, wasLogged, type Transport } from '@coffer/transport';
import { AuditBroker } from './audit/audit-broker.service';
import type { AuditedRequest } from './audit/audit-entry';
import { auditedError, auditedRequestOf, auditedResult, isAudited } from './audit/audit-trail';
import { AclEvaluator } from './auth/acl-evaluator.service';
import { authorize } from './auth/authorizer';
import { callerContextOf, forwardedHeaders, mayAccess } from './auth/gateway-caller';
import { TokenResolver } from './auth/token-resolver.service';
import { GatewayError } from './errors/gateway-error';
import { renderError } from './errors/error-table';
import {
  DEFAULT_ENGINE_TIMEOUT_MS,
  GATEWAY_LOGGER,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  type GatewayOptions,
} from './gateway.options';
import { buildHelp } from './help/help';
import { jsonResult, renderEngineResponse, type HttpResult } from './response/envelope';
import { registerLease } from './response/lease-registration';
import { parseRequestHead, requestBody, type RawRequest } from './request/parse-request';
import type { RequestKind } from './request/request-kind';
import { MountTableService, SEALED_MOUNT_INDEX } from './routing/mount-table.service';
import { resolveRoute, type MountServing, type ResolvedRoute } from './routing/route-resolver';
import { SealStateService } from './routing/seal-state.service';
import { ReplicationGate } from './replication/replication-gate.service';
import { addressesLocalMount } from './replication/dr-secondary.gate';
import { SentinelEnforcer, withSentinelWarnings } from './sentinel/sentinel-enforcer.service';
import { ApiLockGate } from './namespaces/api-lock-gate.service';
import { normaliseNamespacePath, restrictRouting, scopedAclPath } from './namespaces/namespace-scope';
import type { GatewayLogger } from './gateway.logger';
import { observeHttpRequest } from './http/http.metrics';
import {
  ATTR_OPERATION,
  ATTR_REQUEST_ID,
  nameRequestSpan,
  requestSpan,
  routeTemplate,
} from './http/request-span';
import { wrapFormatOf, wrapIfRequested } from './wrapping/response-wrapper';
import { withRequestId } from '@coffer/telemetry';
import { pageListResult } from './response/list-page';

export interface GatewayRequest extends Omit<RawRequest, 'body'> {
  clientAddress: string;
  /** the raw body, read only when asked (after the token check); `json` applies the JSON limits */
  readBody(json: boolean): Promise<Buffer | undefined>;
}

/** What the one log line of a failed request names: the route template once routing found it. */
interface RequestTrace {
  route: string;
  /** the route template for metrics and the HTTP span ("secret/data/:path*"), "unrouted" until known */
  template: string;
  /** set once the request is known to be audited; filled as the pipeline learns more */
  audit?: AuditedRequest;
  /** the request entry was written (a failure then only needs its response entry) */
  requestLogged?: boolean;
}

interface Caller {
  token?: ResolvedToken;
  /** undefined when the route is not under the ACL */
  acl?: Acl;
}

/**
 * The request pipeline behind /v1/*: path normalisation, seal state, mount and route, token and
 * ACL, the engine call over the transport (the engine's contract parses the body), and the envelope
 * or error table.
 */
@Injectable()
export class GatewayService {
  private readonly engineTimeoutMs: number;
  private readonly serving: MountServing;
  /** where restricted routes are served besides the root ("admin/" in managed mode) */
  private readonly adminNamespace: string;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
    private readonly seal: SealStateService,
    private readonly mounts: MountTableService,
    private readonly tokens: TokenResolver,
    private readonly acls: AclEvaluator,
    private readonly audit: AuditBroker,
    private readonly sentinel: SentinelEnforcer,
    private readonly replication: ReplicationGate,
    private readonly locks: ApiLockGate,
  ) {
    this.engineTimeoutMs = options.engineTimeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS;
    this.serving = { tableFor: options.routeTableFor, serviceFor: options.serviceFor };
    this.adminNamespace = normaliseNamespacePath(options.administrativeNamespace);
  }

  handle(req: GatewayRequest): Promise<HttpResult> {
    const requestId = randomUUID();
    // log lines written while serving it name the request (and its trace)
    return withRequestId(requestId, () => this.handleWithId(req, requestId));
  }

  private async handleWithId(req: GatewayRequest, requestId: string): Promise<HttpResult> {
    const startedAt = process.hrtime.bigint();
    // Vault's request_id on the HTTP span: a client's error report leads to its trace
    requestSpan()?.setAttribute(ATTR_REQUEST_ID, requestId);
    const trace: RequestTrace = { route: 'unrouted', template: 'unrouted' };
    let result: HttpResult;
    try {
      result = await this.process(req, requestId, trace);
    } catch (error) {
      result = this.failure(await this.auditFailure(trace, error), requestId, req.method, trace.route);
    }
    observeHttpRequest(req.method, trace.template, result.status, startedAt);
    return result;
  }

  /**
   * Logs a failed request (its request entry unless written, then its response entry with the
   * error). Returns the error to answer: the original one, or the audit failure (fail closed).
   */
  private async auditFailure(trace: RequestTrace, error: unknown): Promise<unknown> {
    const audited = trace.audit;
    if (!audited) return error;
    trace.audit = undefined;
    const text = auditedError(error);
    try {
      if (!trace.requestLogged) await this.audit.logRequest(audited, text);
      await this.audit.logResponse(audited, { error: text });
      return error;
    } catch (auditError) {
      return auditError;
    }
  }

  /**
   * Renders a failure through the error table. A 5xx (but `sealed`, a state the operator chose)
   * is logged here unless the engine that failed already logged it: one line per failed request,
   * with the request id, the route template, the code and the cause, never a body or a token.
   * 4xx are the caller's business and are not logged.
   */
  failure(error: unknown, requestId: string, method: string, route = 'unrouted'): HttpResult {
    const rendered = renderError(error, requestId);
    const code = error instanceof DomainError ? error.code : 'internal';
    if (rendered.status >= 500 && code !== 'sealed' && !wasLogged(error)) {
      const cause = describeCause(error);
      const traceId = activeTraceId();
      this.logger.error(
        `request ${requestId} ${method} ${route} failed: ${rendered.status} ${code}: ${cause.text}` +
          (traceId === undefined ? '' : ` (trace ${traceId})`),
        cause.stack,
      );
    }
    const result = jsonResult(rendered.status, rendered.body);
    return rendered.headers ? { ...result, headers: rendered.headers } : result;
  }

  private async process(req: GatewayRequest, requestId: string, trace: RequestTrace): Promise<HttpResult> {
    const head = parseRequestHead(req);
    const { kind, path, fullPath, query, token, wrapTtl } = head;
    const sealed = await this.seal.isSealed();
    const index = sealed ? SEALED_MOUNT_INDEX : await this.mounts.get();
    const routing = restrictRouting(
      resolveRoute(index, fullPath, path, kind, this.serving),
      this.adminNamespace,
    );
    if (routing.kind !== 'failed') {
      trace.route = `${routing.table.engine} ${routing.kind === 'route' ? routing.route.pattern : 'help'}`;
      const mount = routing.match.mount;
      trace.template =
        routing.kind === 'route'
          ? routeTemplate(mount, routing.route.pattern)
          : `${routeTemplate(mount, '')} help`;
      nameRequestSpan(requestSpan(), req.method, trace.template, mount);
    }
    if (sealed && !(routing.kind === 'route' && routing.route.allowSealed)) {
      throw new DomainError('sealed', 'Vault is sealed');
    }
    // a DR secondary serves only its own routes; a performance secondary forwards replicated writes
    const modeTarget =
      routing.kind === 'route'
        ? {
            service: routing.route.service ?? routing.table.service,
            local: routing.match.entry.local,
            replicated: routing.route.replicated,
          }
        : undefined;
    let served = await this.replication.admit(
      fullPath,
      kind !== 'read' && kind !== 'list' && kind !== 'help',
      modeTarget,
      req.headers,
    );
    if (!sealed) await this.locks.assertOpen(routing, fullPath);
    if (isAudited(routing, kind, sealed)) {
      trace.audit = auditedRequestOf(routing, { requestId, path, kind, token, wrapTtl, req });
    }

    const unauthenticated = routing.kind !== 'help' && routing.route?.unauthenticated === true;
    const caller = unauthenticated
      ? {}
      : await this.authenticate(
          token,
          routing.kind === 'route' && routing.route.noAcl === true,
          req.clientAddress,
        );
    const aclPath = scopedAclPath(caller.token, routing, fullPath, head.aclPath);
    if (trace.audit && caller.token) {
      trace.audit.token = caller.token;
      trace.audit.policies = this.acls.policyNames(caller.token);
    }
    // The body is read only now, and only when it matters: a request without a valid token, or
    // to no route, never costs a parse.
    const form = routing.kind === 'route' && routing.route.formBody === true && head.formEncoded;
    const readBody = async () =>
      requestBody(head, head.hasJsonBody ? await req.readBody(!form) : undefined, form);

    if (routing.kind === 'failed') {
      if (caller.acl && !mayAccess(caller.acl, kind, aclPath, (await readBody()).aclParams, wrapTtl))
        throw permissionDenied();
      throw routing.error;
    }
    if (routing.kind === 'help') {
      if (caller.acl && caller.acl.capabilities(aclPath).includes('deny')) throw permissionDenied();
      const help = buildHelp(routing.table, routing.match.rel, path);
      if (!help) throw new DomainError('unsupported_path', 'unsupported path');
      return jsonResult(200, help);
    }

    const { body, aclParams } = await readBody();
    if (trace.audit) trace.audit.data = body;
    // a write addressing a mount: forwarded unless that mount is (or is enabled as) local here
    if (modeTarget?.replicated === 'mount' && kind !== 'read' && kind !== 'list') {
      const { namespace } = routing.match.mount;
      const addressedLocal = addressesLocalMount(index, namespace, routing.route, routing.params, body);
      served = await this.replication.admitMountChange(
        fullPath,
        { ...modeTarget, addressedLocal },
        req.headers,
      );
    }
    const ctx = callerContextOf(this.acls, {
      requestId,
      path: fullPath,
      routing,
      token: caller.token,
      clientAddress: req.clientAddress,
    });
    const engineRequest: EngineRequest = {
      operation: 'read',
      mount: routing.match.mount,
      path: routing.path,
      params: routing.params,
      body,
      query: query.values,
      headers: forwardedHeaders(routing, req.headers),
    };
    const { operation, sudo } = await authorize({
      acl: caller.acl,
      route: routing.route,
      kind: kind as Exclude<RequestKind, 'help'>,
      aclPath,
      params: aclParams,
      wrapTtl,
      exactOperation: trace.audit !== undefined,
      exists: async () => {
        const check = routing.route.existenceCheck;
        if (!check) return false;
        const request = { ...engineRequest, operation: 'update' as const };
        const answer = await this.transport.request(check, request, {
          headers: encodeContext(ctx),
          timeoutMs: this.engineTimeoutMs,
        });
        return answer.exists;
      },
    });
    ctx.sudo = sudo ?? ctx.root;
    // Vault's router: a mount being unmounted (tainted) answers no request
    if (routing.match.entry.tainted === true) {
      throw new DomainError(
        'no_handler',
        `no handler for route ${JSON.stringify(path)}. route entry is tainted.`,
      );
    }
    const headers = encodeContext(ctx);
    engineRequest.operation = operation;
    requestSpan()?.setAttribute(ATTR_OPERATION, operation);
    if (trace.audit) trace.audit.operation = operation;
    const def = routing.route.operations[operation];
    if (!def) throw new DomainError('unsupported_operation', 'unsupported operation');
    // role and endpoint governing policies, after the ACL (libs/gateway/src/sentinel)
    const sentinel = await this.sentinel.enforce({
      routing,
      token: caller.token,
      path: fullPath,
      operation,
      body,
      headers: req.headers,
      clientAddress: req.clientAddress,
      sudo: ctx.sudo,
      wrapTtl,
    });
    // fail closed: a request no audit device logged never reaches the engine
    if (trace.audit) {
      await this.audit.logRequest(trace.audit);
      trace.requestLogged = true;
    }

    const service = routing.route.service ?? routing.table.service;
    const write = operation !== 'read' && operation !== 'list';
    // a performance secondary's replicated write runs on the primary, as the caller resolved here
    const forwarded =
      served === 'forward' && write
        ? await this.replication.forward(def.contract, service, engineRequest, headers)
        : undefined;
    const answer =
      forwarded?.answer ??
      (await this.transport.request(def.contract, engineRequest, {
        headers,
        timeoutMs: this.engineTimeoutMs,
        write,
      }));
    const leaseAt = { path, mount: routing.match.mount, service };
    const leased = await registerLease(this.transport, withSentinelWarnings(answer, sentinel), leaseAt, {
      headers,
      timeoutMs: this.engineTimeoutMs,
    });
    const result = pageListResult(leased, operation, query.values);
    this.afterSuccess(routing, operation);
    const rendered = renderEngineResponse(result, operation, requestId);
    const wrap = {
      wrapTtl,
      path,
      requestId,
      headers,
      timeoutMs: this.engineTimeoutMs,
      format: wrapFormatOf(req.headers),
      mountType: routing.match.mount.type,
    };
    const answered = await wrapIfRequested(this.transport, wrap, result, rendered);
    if (trace.audit) {
      const audited = trace.audit;
      trace.audit = undefined;
      await this.audit.logResponse(audited, auditedResult(result, answered.wrapInfo));
    }
    return this.replication.answer(fullPath, query.values, answered.http, {
      write,
      service,
      ...(forwarded ? { forwarded: forwarded.index } : {}),
    });
  }

  private async authenticate(
    token: string | undefined,
    noAcl: boolean,
    clientAddress: string,
  ): Promise<Caller> {
    if (token === undefined) throw new GatewayError('missing_token');
    const resolved = await this.tokens.resolve(token);
    // Vault checks te.BoundCIDRs on every request; here too, cached tokens included.
    if (!cidrAllows(resolved.boundCidrs ?? [], clientAddress)) throw permissionDenied();
    if (noAcl) return { token: resolved };
    return { token: resolved, acl: await this.acls.forToken(resolved) };
  }

  /** Drops the caches the route declares stale after a write (belt and braces next to the broadcasts). */
  private afterSuccess(routing: ResolvedRoute, operation: Operation): void {
    if (operation === 'read' || operation === 'list') return;
    for (const cache of routing.route.invalidates ?? []) {
      if (cache === 'mounts') this.mounts.invalidate();
      else if (cache === 'seal') this.seal.invalidate();
      else if (cache === 'audit') this.audit.invalidate();
      else this.tokens.clear();
    }
  }
}
