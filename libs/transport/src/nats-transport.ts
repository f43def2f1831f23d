import { Logger } from '@nestjs/common';
import {
  DomainError,
  type Broadcast,
  type Contract,
  type ContractRequest,
  type ContractResponse,
} from '@coffer/contracts';
import type { TextMapSetter } from '@opentelemetry/api';
import {
  ErrorCode,
  Events,
  connect,
  headers as createHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type NatsError,
  type Subscription as NatsSubscription,
} from 'nats';
import type { z } from 'zod';
import { decodeJson, decodeRequest, encodeJson } from './codec';
import { DEFAULT_TIMEOUT_MS, INTERNAL_MESSAGE, closedError, fromWireError, toDomainError } from './errors';
import { isMaxPayloadError, mapClientError } from './nats-errors';
import { ReplyMux } from './nats-mux';
import { coalesceWrites } from './nats-write-coalescing';
import {
  createBroadcastProcessor,
  createRequestProcessor,
  validateBroadcast,
  type RequestProcessor,
} from './server';
import { SubjectTable } from './subjects';
import { endSpan, injectTraceContext, startClientSpan } from './tracing';
import type {
  BroadcastHandler,
  Headers,
  RequestHandler,
  RequestOptions,
  Subscription,
  Transport,
  TransportLogger,
} from './types';

export interface NatsTransportOptions {
  servers: string | string[];
  /** prepended to every subject: one per deployment (or per test run) */
  subjectPrefix: string;
  /** connection name, shown by the NATS server's monitoring (e.g. "kv-7f3a") */
  name: string;
  logger?: TransportLogger;
}

/** Marks a reply as a DomainError body rather than a response. Success replies carry no headers. */
const ERROR_HEADER = 'coffer-error';

interface HeaderCarrier {
  headers: MsgHdrs | undefined;
}
const carrierSetter: TextMapSetter<HeaderCarrier> = {
  set(carrier, key, value) {
    (carrier.headers ??= createHeaders()).append(key, value);
  },
};

function readHeaders(msgHeaders: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (msgHeaders === undefined) return out;
  // Iterating the entries avoids MsgHdrs.get(), which scans and allocates per lookup.
  for (const [key, values] of msgHeaders) {
    const value = values[0];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function errorReply(error: DomainError): [Uint8Array, MsgHdrs] {
  const headers = createHeaders();
  headers.append(ERROR_HEADER, '1');
  return [encodeJson(error.toBody()), headers];
}

export async function connectNatsTransport(options: NatsTransportOptions): Promise<NatsTransport> {
  const nc = await connect({
    servers: options.servers,
    name: options.name,
    // Services outlive NATS restarts: keep reconnecting instead of giving up after a few tries.
    maxReconnectAttempts: -1,
    // Stack traces captured up front for every publish/request would never be read: errors
    // become DomainErrors.
    noAsyncTraces: true,
  });
  coalesceWrites(nc);
  return new NatsTransport(nc, options.subjectPrefix, options.logger ?? new Logger('CofferTransport'));
}

/** Cluster-mode transport: NATS request/reply (one muxed inbox) with queue groups, JSON payloads. */
export class NatsTransport implements Transport {
  private readonly subjects: SubjectTable;
  private readonly mux: ReplyMux;
  private readonly subscriptions = new Set<NatsSubscription>();
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    subjectPrefix: string,
    private readonly logger: TransportLogger,
  ) {
    this.subjects = new SubjectTable(subjectPrefix);
    this.mux = new ReplyMux(nc);
    void this.watchStatus();
  }

  async request<C extends Contract>(
    contract: C,
    payload: ContractRequest<C>,
    opts?: RequestOptions,
  ): Promise<ContractResponse<C>> {
    const info = this.subjects.get(contract.subject);
    const timeout = opts?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const ctx = startClientSpan(info);
    try {
      if (this.closing !== undefined) throw closedError();
      const carrier: HeaderCarrier = { headers: undefined };
      const given = opts?.headers;
      if (given !== undefined) for (const key in given) carrierSetter.set(carrier, key, given[key] as string);
      injectTraceContext(ctx, carrier, carrierSetter);
      const reply = await this.mux.request(info.wire, encodeJson(payload), carrier.headers, timeout);
      const body = decodeJson(reply.data);
      if (reply.headers?.has(ERROR_HEADER)) throw fromWireError(body);
      endSpan(ctx);
      return body as ContractResponse<C>;
    } catch (error) {
      const domainError = mapClientError(error, info.subject, info.service, timeout, this.logger);
      endSpan(ctx, domainError);
      throw domainError;
    }
  }

  serve<C extends Contract>(contract: C, queue: string, handler: RequestHandler<C>): Subscription {
    const info = this.subjects.get(contract.subject);
    const process = createRequestProcessor(contract, queue, handler, this.logger);
    return this.track(
      this.nc.subscribe(info.wire, {
        queue,
        callback: (err: NatsError | null, msg: Msg) => {
          if (err !== null) this.logger.warn(`subscription to "${info.subject}" failed: ${err.code}`);
          else void this.answer(msg, process, info.subject);
        },
      }),
    );
  }

  async publish<B extends Broadcast>(broadcast: B, payload: z.input<B['payload']>): Promise<void> {
    const info = this.subjects.get(broadcast.subject);
    if (this.closing !== undefined) throw closedError();
    this.nc.publish(info.wire, encodeJson(validateBroadcast(info.subject, broadcast.payload, payload)));
  }

  subscribe<B extends Broadcast>(broadcast: B, handler: BroadcastHandler<B>): Subscription {
    const info = this.subjects.get(broadcast.subject);
    const process = createBroadcastProcessor(info.subject, broadcast, handler, this.logger);
    return this.track(
      this.nc.subscribe(info.wire, {
        callback: (err: NatsError | null, msg: Msg) => {
          if (err !== null) {
            this.logger.warn(`subscription to "${info.subject}" failed: ${err.code}`);
            return;
          }
          let payload: unknown;
          try {
            payload = decodeJson(msg.data);
          } catch {
            this.logger.warn(`dropped a "${info.subject}" broadcast that is not valid JSON`);
            return;
          }
          this.inFlight++;
          void process(payload).finally(() => this.done());
        },
      }),
    );
  }

  async flush(): Promise<void> {
    await this.nc.flush();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // Stop taking work, let handlers already running answer, then drain the connection.
    await Promise.allSettled([...this.subscriptions].map((sub) => sub.drain()));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    if (!this.nc.isClosed()) await this.nc.drain();
    this.mux.rejectAll(ErrorCode.ConnectionClosed);
  }

  private track(sub: NatsSubscription): Subscription {
    this.subscriptions.add(sub);
    return {
      unsubscribe: () => {
        this.subscriptions.delete(sub);
        if (!sub.isClosed()) sub.unsubscribe();
      },
    };
  }

  private async answer(msg: Msg, process: RequestProcessor, subject: string): Promise<void> {
    this.inFlight++;
    let data: Uint8Array;
    let headers: MsgHdrs | undefined;
    try {
      data = encodeJson(await process(decodeRequest(msg.data), readHeaders(msg.headers)));
    } catch (error) {
      [data, headers] = errorReply(toDomainError(error, subject, this.logger));
    }
    try {
      this.respond(msg, data, headers, subject);
    } catch (error) {
      this.logger.warn(
        `could not answer "${subject}": ${error instanceof Error ? error.message : 'unknown'}`,
      );
    } finally {
      this.done();
    }
  }

  private respond(msg: Msg, data: Uint8Array, headers: MsgHdrs | undefined, subject: string): void {
    try {
      msg.respond(data, headers === undefined ? undefined : { headers });
    } catch (error) {
      if (!isMaxPayloadError(error)) throw error;
      // Without an answer the caller would wait for its time-out: tell it something went wrong.
      this.logger.error(`reply to "${subject}" exceeds the NATS max_payload (${data.length} bytes)`);
      const [body, errorHeaders] = errorReply(new DomainError('internal', INTERNAL_MESSAGE));
      msg.respond(body, { headers: errorHeaders });
    }
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idle !== undefined) this.idle();
  }

  private async watchStatus(): Promise<void> {
    // Ends by itself when the connection closes.
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect) {
        const server = typeof status.data === 'object' ? 'cluster' : String(status.data);
        this.logger.warn(`NATS ${status.type} (${server})`);
      }
    }
  }
}
