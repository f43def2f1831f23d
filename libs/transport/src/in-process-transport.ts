import { Logger } from '@nestjs/common';
import {
  type Broadcast,
  type Contract,
  type ContractRequest,
  type ContractResponse,
} from '@coffer/contracts';
import { defaultTextMapSetter } from '@opentelemetry/api';
import type { z } from 'zod';
import { roundTrip } from './codec';
import {
  DEFAULT_TIMEOUT_MS,
  closedError,
  fromWireError,
  noReplicaError,
  timeoutError,
  toDomainError,
} from './errors';
import {
  createBroadcastProcessor,
  createRequestProcessor,
  validateBroadcast,
  type RequestProcessor,
} from './server';
import { SubjectTable, type SubjectInfo } from './subjects';
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

export interface InProcessTransportOptions {
  subjectPrefix?: string;
  logger?: TransportLogger;
}

interface QueueGroup {
  members: RequestProcessor[];
  next: number;
}

/**
 * Dev mode's bus, behaving like NATS for everything a service can observe: payloads, headers and
 * errors go through JSON (nothing is shared by reference), delivery is asynchronous, each queue
 * group answers round-robin, and the first reply wins when several groups serve one subject.
 */
export class InProcessTransport implements Transport {
  private readonly subjects: SubjectTable;
  private readonly logger: TransportLogger;
  private readonly servers = new Map<string, Map<string, QueueGroup>>();
  private readonly subscribers = new Map<string, Set<(payload: unknown) => Promise<void>>>();
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: InProcessTransportOptions = {}) {
    this.subjects = new SubjectTable(options.subjectPrefix ?? '');
    this.logger = options.logger ?? new Logger('CofferTransport');
  }

  async request<C extends Contract>(
    contract: C,
    payload: ContractRequest<C>,
    opts?: RequestOptions,
  ): Promise<ContractResponse<C>> {
    const info = this.subjects.get(contract.subject);
    const ctx = startClientSpan(info);
    try {
      if (this.closing !== undefined) throw closedError();
      const groups = this.servers.get(info.wire);
      if (groups === undefined) throw noReplicaError(info.service);
      const headers: Headers = { ...opts?.headers };
      injectTraceContext(ctx, headers, defaultTextMapSetter);
      const json = JSON.stringify(payload);
      const reply = await this.dispatch(groups, json, headers, info, opts?.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      endSpan(ctx);
      return reply as ContractResponse<C>;
    } catch (error) {
      const domainError = toDomainError(error, info.subject, this.logger);
      endSpan(ctx, domainError);
      throw domainError;
    }
  }

  serve<C extends Contract>(contract: C, queue: string, handler: RequestHandler<C>): Subscription {
    if (this.closing !== undefined) throw new Error('the transport is closed');
    const info = this.subjects.get(contract.subject);
    const process = createRequestProcessor(contract, queue, handler, this.logger);
    let groups = this.servers.get(info.wire);
    if (groups === undefined) this.servers.set(info.wire, (groups = new Map<string, QueueGroup>()));
    let group = groups.get(queue);
    if (group === undefined) groups.set(queue, (group = { members: [], next: 0 }));
    group.members.push(process);
    const serving = group;
    return {
      unsubscribe: () => {
        const index = serving.members.indexOf(process);
        if (index === -1) return;
        serving.members.splice(index, 1);
        if (serving.members.length === 0) groups.delete(queue);
        if (groups.size === 0 && this.servers.get(info.wire) === groups) this.servers.delete(info.wire);
      },
    };
  }

  async publish<B extends Broadcast>(broadcast: B, payload: z.input<B['payload']>): Promise<void> {
    const info = this.subjects.get(broadcast.subject);
    if (this.closing !== undefined) throw closedError();
    const json = JSON.stringify(validateBroadcast(info.subject, broadcast.payload, payload));
    const subscribers = this.subscribers.get(info.wire);
    if (subscribers === undefined) return;
    for (const deliver of subscribers) {
      this.inFlight++;
      setImmediate(() => void deliver(parseJson(json)).finally(() => this.done()));
    }
  }

  subscribe<B extends Broadcast>(broadcast: B, handler: BroadcastHandler<B>): Subscription {
    if (this.closing !== undefined) throw new Error('the transport is closed');
    const info = this.subjects.get(broadcast.subject);
    // A fresh function per subscription, so the same handler subscribed twice is delivered twice.
    const deliver = createBroadcastProcessor(info.subject, broadcast, handler, this.logger);
    let set = this.subscribers.get(info.wire);
    if (set === undefined) this.subscribers.set(info.wire, (set = new Set()));
    set.add(deliver);
    const subscribed = set;
    return {
      unsubscribe: () => {
        subscribed.delete(deliver);
        if (subscribed.size === 0 && this.subscribers.get(info.wire) === subscribed)
          this.subscribers.delete(info.wire);
      },
    };
  }

  async flush(): Promise<void> {
    // Nothing is buffered: publish hands messages to subscribers directly.
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.servers.clear();
    this.subscribers.clear();
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  /** One member of every queue group gets the request, as on NATS; the first answer wins. */
  private dispatch(
    groups: Map<string, QueueGroup>,
    json: string | undefined,
    headers: Headers,
    info: SubjectInfo,
    timeoutMs: number,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(timeoutError(info.service, timeoutMs));
      }, timeoutMs);
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      for (const group of groups.values()) {
        const member = group.members[group.next % group.members.length];
        group.next = (group.next + 1) % group.members.length;
        if (member === undefined) continue;
        this.inFlight++;
        setImmediate(() => {
          void member(parseJson(json), { ...headers })
            .then(
              (result) => {
                const reply = roundTrip(result);
                settle(() => resolve(reply));
              },
              (error: unknown) => {
                const body = roundTrip(toDomainError(error, info.subject, this.logger).toBody());
                settle(() => reject(fromWireError(body)));
              },
            )
            .finally(() => this.done());
        });
      }
    });
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idle !== undefined) this.idle();
  }
}

function parseJson(json: string | undefined): unknown {
  return json === undefined ? undefined : JSON.parse(json);
}
