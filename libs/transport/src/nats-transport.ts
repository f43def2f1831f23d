import { Logger } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
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
import { decodeJson, decodeRequest, encodeJson } from './codec';
import { fromWireError, internalError, requestIdOf, toDomainError, wireErrorBody } from './transport-errors';
import { isMaxPayloadError, mapClientError } from './nats-errors';
import { ReplyMux } from './nats-mux';
import { coalesceWrites } from './nats-write-coalescing';
import type { BroadcastProcessor, RequestProcessor } from './server';
import type { SubjectInfo } from './subjects';
import { TransportBase } from './transport-base';
import type { Headers, Subscription, TransportLogger } from './transport-types';

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
  return [encodeJson(wireErrorBody(error)), headers];
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
export class NatsTransport extends TransportBase<HeaderCarrier, Msg> {
  private readonly mux: ReplyMux;
  private readonly subscriptions = new Set<NatsSubscription>();
  private disconnected = false;

  constructor(
    private readonly nc: NatsConnection,
    subjectPrefix: string,
    logger: TransportLogger,
  ) {
    super(subjectPrefix, logger);
    this.mux = new ReplyMux(nc);
    void this.watchStatus();
  }

  /** False while the connection to NATS is lost (it keeps reconnecting) and once closed: for /health. */
  get connected(): boolean {
    return !this.disconnected && !this.nc.isClosed();
  }

  async flush(): Promise<void> {
    await this.nc.flush();
  }

  protected readonly headerSetter = carrierSetter;

  protected outgoingHeaders(given: Headers | undefined): HeaderCarrier {
    const carrier: HeaderCarrier = { headers: undefined };
    if (given !== undefined) for (const key in given) carrierSetter.set(carrier, key, given[key] as string);
    return carrier;
  }

  protected send(
    info: SubjectInfo,
    payload: unknown,
    carrier: HeaderCarrier,
    timeoutMs: number,
  ): Promise<Msg> {
    return this.mux.request(info.wire, encodeJson(payload), carrier.headers, timeoutMs);
  }

  protected readReply(reply: Msg): unknown {
    const body = decodeJson(reply.data);
    if (reply.headers?.has(ERROR_HEADER)) throw fromWireError(body);
    return body;
  }

  protected override clientError(
    error: unknown,
    info: SubjectInfo,
    timeoutMs: number,
    write: boolean,
  ): DomainError {
    return mapClientError(error, info.service, timeoutMs, write);
  }

  protected listen(info: SubjectInfo, queue: string, process: RequestProcessor): Subscription {
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

  protected emit(info: SubjectInfo, payload: unknown): void {
    this.nc.publish(info.wire, encodeJson(payload));
  }

  protected listenBroadcast(info: SubjectInfo, deliver: BroadcastProcessor): Subscription {
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
          this.delivering();
          void deliver(payload).finally(() => this.delivered());
        },
      }),
    );
  }

  protected async shutdown(): Promise<void> {
    // Stop taking work, let handlers already running answer, then drain the connection.
    await Promise.allSettled([...this.subscriptions].map((sub) => sub.drain()));
    await this.inFlightSettled();
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
    this.delivering();
    let data: Uint8Array;
    let headers: MsgHdrs | undefined;
    const requestHeaders = readHeaders(msg.headers);
    try {
      data = encodeJson(await process(decodeRequest(msg.data), requestHeaders));
    } catch (error) {
      [data, headers] = errorReply(toDomainError(error, subject, this.logger, requestIdOf(requestHeaders)));
    }
    try {
      this.respond(msg, data, headers, subject);
    } catch (error) {
      this.logger.warn(
        `could not answer "${subject}": ${error instanceof Error ? error.message : 'unknown'}`,
      );
    } finally {
      this.delivered();
    }
  }

  private respond(msg: Msg, data: Uint8Array, headers: MsgHdrs | undefined, subject: string): void {
    try {
      msg.respond(data, headers === undefined ? undefined : { headers });
    } catch (error) {
      if (!isMaxPayloadError(error)) throw error;
      // Without an answer the caller would wait for its time-out: tell it something went wrong.
      const tooLarge = internalError(
        new Error(`the reply exceeds the NATS max_payload (${data.length} bytes)`),
      );
      const [body, errorHeaders] = errorReply(
        toDomainError(tooLarge, subject, this.logger, requestIdOf(readHeaders(msg.headers))),
      );
      msg.respond(body, { headers: errorHeaders });
    }
  }

  private async watchStatus(): Promise<void> {
    // Ends by itself when the connection closes.
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect) {
        this.disconnected = status.type === Events.Disconnect;
        const server = typeof status.data === 'object' ? 'cluster' : String(status.data);
        this.logger.warn(`NATS ${status.type} (${server})`);
      }
    }
  }
}
