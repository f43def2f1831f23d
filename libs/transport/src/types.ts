import type { z } from 'zod';
import type { Broadcast, Contract, ContractRequest, ContractResponse } from '@coffer/contracts';

export type Headers = Record<string, string>;

export interface RequestOptions {
  headers?: Headers;
  /** default 30 000 ms; on time-out the call fails with DomainError('service_unavailable') */
  timeoutMs?: number;
}

/**
 * The only way services talk to each other. Two implementations with identical behaviour:
 * NATS (cluster mode, queue groups) and in-process (dev mode). Subjects given here are relative;
 * the implementation prefixes them with its configured subject prefix.
 *
 * Errors: a handler that throws DomainError reaches the caller as the same DomainError (code,
 * message, data, warnings); any other error becomes DomainError('internal', 'internal error')
 * and is logged by the server side without payloads. No subscriber -> DomainError
 * ('service_unavailable', 'no running replica of the "<service>" service') at once, never a hang.
 * Requests and responses are validated with the contract's zod schemas on both sides.
 */
export interface Transport {
  request<C extends Contract>(contract: C, payload: ContractRequest<C>, opts?: RequestOptions): Promise<ContractResponse<C>>;
  /** Serve a contract in a queue group (one replica of the group answers each request). */
  serve<C extends Contract>(
    contract: C,
    queue: string,
    handler: (payload: z.output<C['request']>, headers: Headers) => Promise<z.input<C['response']>>,
  ): Subscription;
  /** Fire-and-forget to every subscriber (no queue group). */
  publish<B extends Broadcast>(broadcast: B, payload: z.input<B['payload']>): Promise<void>;
  subscribe<B extends Broadcast>(
    broadcast: B,
    handler: (payload: z.output<B['payload']>) => void | Promise<void>,
  ): Subscription;
  /** Resolves once every pending publish reached the server (NATS flush); no-op in-process. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface Subscription {
  unsubscribe(): void;
}
