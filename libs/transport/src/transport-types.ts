import type { z } from 'zod';
import type { Broadcast, Contract, ContractRequest, ContractResponse } from '@coffer/contracts';

export type Headers = Record<string, string>;

export interface RequestOptions {
  headers?: Headers;
  /** default 30 000 ms; on time-out the call fails with DomainError('service_unavailable') */
  timeoutMs?: number;
  /** the request may change state: a time-out then says it may have been applied */
  write?: boolean;
}

export type RequestHandler<C extends Contract> = (
  payload: z.output<C['request']>,
  headers: Headers,
) => Promise<z.input<C['response']>>;

export type BroadcastHandler<B extends Broadcast> = (payload: z.output<B['payload']>) => void | Promise<void>;

/**
 * The only way services talk to each other. Two implementations with identical behaviour:
 * NATS (cluster mode, queue groups) and in-process (dev mode). Subjects given here are relative;
 * the implementation prefixes them with its configured subject prefix.
 *
 * Errors: a handler that throws DomainError reaches the caller as the same DomainError (code,
 * message, data, warnings); any other error becomes DomainError('internal', 'internal error').
 * The serving side logs server faults (5xx codes and non-DomainErrors) once, with the request id
 * of the caller context, and marks them on the wire as logged; nobody logs 4xx. No subscriber -> DomainError
 * ('service_unavailable', 'no running replica of the "<service>" service') at once, never a hang.
 * The serving side validates requests (invalid -> DomainError('invalid_request')) and its own
 * responses with the contract's zod schemas; the calling side trusts the response (hot path), and
 * what it receives is the response schema's output (defaults applied).
 */
export interface Transport {
  request<C extends Contract>(
    contract: C,
    payload: ContractRequest<C>,
    opts?: RequestOptions,
  ): Promise<ContractResponse<C>>;
  /** Serve a contract in a queue group (one replica of the group answers each request). */
  serve<C extends Contract>(contract: C, queue: string, handler: RequestHandler<C>): Subscription;
  /**
   * Fire-and-forget to every subscriber (no queue group). The payload is validated here and again
   * by each subscriber; subscribers log and drop payloads that fail their schema.
   */
  publish<B extends Broadcast>(broadcast: B, payload: z.input<B['payload']>): Promise<void>;
  subscribe<B extends Broadcast>(broadcast: B, handler: BroadcastHandler<B>): Subscription;
  /** Resolves once every pending publish reached the server (NATS flush); no-op in-process. */
  flush(): Promise<void>;
  /** Stops serving, lets in-flight handlers answer, then disconnects (NATS drain). */
  close(): Promise<void>;
}

export interface Subscription {
  unsubscribe(): void;
}

/** Where the transport reports handler failures (never with payloads). Nest's Logger fits. */
export interface TransportLogger {
  error(message: string, stack?: string): void;
  warn(message: string): void;
}
