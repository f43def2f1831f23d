import type { z } from 'zod';

/**
 * A contract is one object: a transport subject plus zod schemas for the request payload and the
 * response payload. Both sides validate against the same object. The subject is relative: the
 * transport prefixes it (per deployment / per test run), e.g. "kv.v2.data.read" -> "coffer.kv.v2.data.read".
 */
export interface Contract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}

export function defineContract<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  response: Res,
): Contract<Req, Res> {
  return { subject, request, response };
}

export type ContractRequest<C> = C extends Contract<infer Req, z.ZodType> ? z.input<Req> : never;
export type ContractResponse<C> = C extends Contract<z.ZodType, infer Res> ? z.output<Res> : never;

/** A broadcast (every instance receives it, no queue group, no reply). Used for cache invalidation. */
export interface Broadcast<P extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly payload: P;
}
export function defineBroadcast<P extends z.ZodType>(subject: string, payload: P): Broadcast<P> {
  return { subject, payload };
}
