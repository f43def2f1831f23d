import type { TextMapSetter } from '@opentelemetry/api';
import {
  DomainError,
  type Broadcast,
  type Contract,
  type ContractRequest,
  type ContractResponse,
} from '@coffer/contracts';
import type { z } from 'zod';
import { DEFAULT_TIMEOUT_MS, closedError, internalError } from './transport-errors';
import {
  createBroadcastProcessor,
  createRequestProcessor,
  validateBroadcast,
  type BroadcastProcessor,
  type RequestProcessor,
} from './server';
import { SubjectTable, type SubjectInfo } from './subjects';
import { endSpan, injectTraceContext, startClientSpan } from './tracing';
import { outcomeOf, transportRequestSeconds } from './transport.metrics';
import type {
  BroadcastHandler,
  Headers,
  RequestHandler,
  RequestOptions,
  Subscription,
  Transport,
  TransportLogger,
} from './transport-types';

/**
 * What both transports share, so that they cannot drift apart: subject resolution, client spans
 * and error mapping, the serving and broadcast processors, publish-side validation, and the
 * in-flight count close() waits for. A subclass only moves bytes (the abstract hooks). `Carrier` is
 * its form of outgoing headers; `Reply` is whatever its send() resolves with, decoded by
 * readReply() so that a request costs no extra promise.
 */
export abstract class TransportBase<Carrier, Reply> implements Transport {
  protected readonly subjects: SubjectTable;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  protected constructor(
    subjectPrefix: string,
    protected readonly logger: TransportLogger,
  ) {
    this.subjects = new SubjectTable(subjectPrefix);
  }

  async request<C extends Contract>(
    contract: C,
    payload: ContractRequest<C>,
    opts?: RequestOptions,
  ): Promise<ContractResponse<C>> {
    const info = this.subjects.get(contract.subject);
    const timeoutMs = opts?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const write = opts?.write === true;
    const ctx = startClientSpan(info);
    const startedAt = process.hrtime.bigint();
    try {
      if (this.closing !== undefined) throw closedError();
      const headers = this.outgoingHeaders(opts?.headers);
      injectTraceContext(ctx, headers, this.headerSetter);
      const body = this.readReply(await this.send(info, payload, headers, timeoutMs, write));
      endSpan(ctx);
      this.observe(info, startedAt);
      return body as ContractResponse<C>;
    } catch (error) {
      const domainError = this.clientError(error, info, timeoutMs, write);
      endSpan(ctx, domainError);
      this.observe(info, startedAt, domainError);
      throw domainError;
    }
  }

  private observe(info: SubjectInfo, startedAt: bigint, error?: unknown): void {
    transportRequestSeconds.observe(
      { subject: info.subject, service: info.service, outcome: outcomeOf(error) },
      Number(process.hrtime.bigint() - startedAt) / 1e9,
    );
  }

  serve<C extends Contract>(contract: C, queue: string, handler: RequestHandler<C>): Subscription {
    const info = this.subjects.get(contract.subject);
    return this.listen(info, queue, createRequestProcessor(contract, queue, handler, this.logger));
  }

  async publish<B extends Broadcast>(broadcast: B, payload: z.input<B['payload']>): Promise<void> {
    const info = this.subjects.get(broadcast.subject);
    if (this.closing !== undefined) throw closedError();
    this.emit(info, validateBroadcast(info.subject, broadcast.payload, payload));
  }

  subscribe<B extends Broadcast>(broadcast: B, handler: BroadcastHandler<B>): Subscription {
    const info = this.subjects.get(broadcast.subject);
    // A fresh processor per subscription, so the same handler subscribed twice is delivered twice.
    return this.listenBroadcast(
      info,
      createBroadcastProcessor(info.subject, broadcast, handler, this.logger),
    );
  }

  abstract flush(): Promise<void>;

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** A request's own headers, copied into the carrier send() takes; the trace context follows. */
  protected abstract outgoingHeaders(given: Headers | undefined): Carrier;

  protected abstract readonly headerSetter: TextMapSetter<Carrier>;

  /**
   * Sends a request and resolves with the raw reply. May throw synchronously (e.g. nobody serves
   * the subject): request() maps that like a rejection.
   */
  protected abstract send(
    info: SubjectInfo,
    payload: unknown,
    headers: Carrier,
    timeoutMs: number,
    write: boolean,
  ): Promise<Reply>;

  /** The response a reply carries, or throws the DomainError it carries instead. */
  protected abstract readReply(reply: Reply): unknown;

  /** Joins `queue` on the subject; each delivered request goes through `process`. */
  protected abstract listen(info: SubjectInfo, queue: string, process: RequestProcessor): Subscription;

  /** Delivers an already validated broadcast payload to every subscriber. */
  protected abstract emit(info: SubjectInfo, payload: unknown): void;

  protected abstract listenBroadcast(info: SubjectInfo, deliver: BroadcastProcessor): Subscription;

  /** Stops taking work, waits for inFlightSettled(), then releases the bus. */
  protected abstract shutdown(): Promise<void>;

  /**
   * What a failed request means to its caller; transports with their own failures extend this.
   * Nothing is logged here: whoever answers the request logs a server fault once, with its cause.
   */
  protected clientError(
    error: unknown,
    _info: SubjectInfo,
    _timeoutMs: number,
    _write: boolean,
  ): DomainError {
    return error instanceof DomainError ? error : internalError(error);
  }

  protected get isClosing(): boolean {
    return this.closing !== undefined;
  }

  /** Counts a delivery close() must wait for; pair with delivered(). */
  protected delivering(): void {
    this.inFlight++;
  }

  protected delivered(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idle !== undefined) this.idle();
  }

  protected inFlightSettled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => (this.idle = resolve));
  }
}
