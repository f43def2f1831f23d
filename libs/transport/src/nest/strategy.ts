import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { Broadcast, Contract } from '@coffer/contracts';
import { isObservable, lastValueFrom } from 'rxjs';
import type { Headers, Subscription, Transport } from '../transport-types';
import { CofferRpcContext } from './rpc-context';
import { BROADCAST_EXTRA, CONTRACT_EXTRA } from './decorators';

export const COFFER_TRANSPORT = Symbol('COFFER_TRANSPORT');

const NO_HEADERS: Headers = Object.freeze({});

const hasSchema = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && typeof (v as { safeParse?: unknown }).safeParse === 'function';

function isContract(v: unknown): v is Contract {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Partial<Record<keyof Contract, unknown>>;
  return typeof c.subject === 'string' && hasSchema(c.request) && hasSchema(c.response);
}

function isBroadcast(v: unknown): v is Broadcast {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Partial<Record<keyof Broadcast, unknown>>;
  return typeof b.subject === 'string' && hasSchema(b.payload);
}

/** Nest handlers may answer with a value, a Promise or an Observable (its last value is the reply). */
async function invoke(handler: MessageHandler, payload: unknown, ctx: CofferRpcContext): Promise<unknown> {
  const out: unknown = await handler(payload, ctx);
  return isObservable(out) ? lastValueFrom(out, { defaultValue: undefined }) : out;
}

/**
 * Serves a Nest microservice's handlers through a Coffer Transport: every @Handles(contract)
 * method in the `queue` group (replicas share the load), every @OnBroadcast(broadcast) method as a
 * plain subscriber. Validation, tracing and error mapping happen in the transport, so a handler
 * receives the request schema's output and may return the response schema's input.
 */
export class CofferTransportStrategy extends Server implements CustomTransportStrategy {
  override readonly transportId = COFFER_TRANSPORT;
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly transport: Transport,
    private readonly queue: string,
  ) {
    super();
  }

  listen(callback: (error?: unknown) => void): void {
    let bindings: (() => Subscription)[];
    try {
      // Check every handler before serving any, so a bad module serves nothing at all.
      bindings = [...this.messageHandlers].map(([pattern, handler]) => this.binding(pattern, handler));
    } catch (error) {
      callback(error);
      return;
    }
    for (const bind of bindings) this.subscriptions.push(bind());
    // Ready only once the NATS server knows the subscriptions: a caller told "started" must not
    // get "no running replica".
    this.transport.flush().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  close(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  on(): never {
    throw new Error('CofferTransportStrategy emits no events');
  }

  unwrap<T>(): T {
    return this.transport as T;
  }

  private binding(pattern: string, handler: MessageHandler): () => Subscription {
    const extras = handler.extras;
    if (handler.isEventHandler) {
      const broadcast: unknown = extras?.[BROADCAST_EXTRA];
      if (!isBroadcast(broadcast))
        throw new Error(`event handler "${pattern}" has no broadcast: use @OnBroadcast`);
      const subject = broadcast.subject;
      return () =>
        this.transport.subscribe(broadcast, async (payload) => {
          await invoke(handler, payload, new CofferRpcContext([NO_HEADERS, subject]));
        });
    }
    const contract: unknown = extras?.[CONTRACT_EXTRA];
    if (!isContract(contract)) throw new Error(`message handler "${pattern}" has no contract: use @Handles`);
    const subject = contract.subject;
    return () =>
      this.transport.serve(contract, this.queue, (payload, headers) =>
        invoke(handler, payload, new CofferRpcContext([headers, subject])),
      );
  }
}
