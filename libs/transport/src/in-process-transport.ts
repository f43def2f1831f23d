import { Logger } from '@nestjs/common';
import { defaultTextMapSetter } from '@opentelemetry/api';
import { roundTrip } from './codec';
import {
  fromWireError,
  noReplicaError,
  requestIdOf,
  timeoutError,
  toDomainError,
  wireErrorBody,
} from './transport-errors';
import type { BroadcastProcessor, RequestProcessor } from './server';
import type { SubjectInfo } from './subjects';
import { TransportBase } from './transport-base';
import type { Headers, Subscription, TransportLogger } from './transport-types';

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
export class InProcessTransport extends TransportBase<Headers, unknown> {
  private readonly servers = new Map<string, Map<string, QueueGroup>>();
  private readonly subscribers = new Map<string, Set<BroadcastProcessor>>();

  constructor(options: InProcessTransportOptions = {}) {
    super(options.subjectPrefix ?? '', options.logger ?? new Logger('CofferTransport'));
  }

  async flush(): Promise<void> {
    // Nothing is buffered: publish hands messages to subscribers directly.
  }

  protected readonly headerSetter = defaultTextMapSetter;

  protected outgoingHeaders(given: Headers | undefined): Headers {
    return { ...given };
  }

  protected send(
    info: SubjectInfo,
    payload: unknown,
    headers: Headers,
    timeoutMs: number,
    write: boolean,
  ): Promise<unknown> {
    const groups = this.servers.get(info.wire);
    if (groups === undefined) throw noReplicaError(info.service);
    return this.dispatch(groups, JSON.stringify(payload), headers, info, timeoutMs, write);
  }

  protected readReply(reply: unknown): unknown {
    // dispatch() already copied the reply and rejects with the copied error.
    return reply;
  }

  protected listen(info: SubjectInfo, queue: string, process: RequestProcessor): Subscription {
    this.assertOpen();
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

  protected emit(info: SubjectInfo, payload: unknown): void {
    const json = JSON.stringify(payload);
    const subscribers = this.subscribers.get(info.wire);
    if (subscribers === undefined) return;
    for (const deliver of subscribers) {
      this.delivering();
      setImmediate(() => void deliver(parseJson(json)).finally(() => this.delivered()));
    }
  }

  protected listenBroadcast(info: SubjectInfo, deliver: BroadcastProcessor): Subscription {
    this.assertOpen();
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

  protected async shutdown(): Promise<void> {
    this.servers.clear();
    this.subscribers.clear();
    await this.inFlightSettled();
  }

  /** Serving after close() is a wiring bug: NATS refuses it too (the connection is draining). */
  private assertOpen(): void {
    if (this.isClosing) throw new Error('the transport is closed');
  }

  /** One member of every queue group gets the request, as on NATS; the first answer wins. */
  private dispatch(
    groups: Map<string, QueueGroup>,
    json: string | undefined,
    headers: Headers,
    info: SubjectInfo,
    timeoutMs: number,
    write: boolean,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(timeoutError(info.service, timeoutMs, write));
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
        this.delivering();
        setImmediate(() => {
          void member(parseJson(json), { ...headers })
            .then(
              (result) => {
                const reply = roundTrip(result);
                settle(() => resolve(reply));
              },
              (error: unknown) => {
                const failure = toDomainError(error, info.subject, this.logger, requestIdOf(headers));
                const body = roundTrip(wireErrorBody(failure));
                settle(() => reject(fromWireError(body)));
              },
            )
            .finally(() => this.delivered());
        });
      }
    });
  }
}

function parseJson(json: string | undefined): unknown {
  return json === undefined ? undefined : JSON.parse(json);
}
