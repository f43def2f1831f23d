import { AsyncLocalStorage } from 'node:async_hooks';
import { decodeContext, type CallerContext } from '@coffer/contracts';
import type { Headers } from './transport-types';

/**
 * The caller of the request a service is serving, for code far from the handler that must know
 * who asked without taking it as a parameter: the event store records the actor (accessor,
 * entity, request id) of each event it appends (docs/history.md, change feed). Set by the
 * transport's request processor around each handler, so it follows the request's async work.
 */
const scope = new AsyncLocalStorage<CallerContext | undefined>();

/** The caller context of the request being served here, or undefined (no request, or none sent). */
export function currentCaller(): CallerContext | undefined {
  return scope.getStore();
}

/** Runs `fn` with the caller decoded from `headers` as the current caller (none when absent or bad). */
export function withCallerOf<T>(headers: Headers, fn: () => Promise<T>): Promise<T> {
  let caller: CallerContext | undefined;
  try {
    caller = decodeContext(headers);
  } catch {
    // a header that does not decode is the handler's to refuse (@Caller); here it is just no actor
    caller = undefined;
  }
  return scope.run(caller, fn);
}

/** Runs `fn` as `caller` (a service acting on behalf of a request it received some other way). */
export function withCaller<T>(caller: CallerContext | undefined, fn: () => Promise<T>): Promise<T> {
  return scope.run(caller, fn);
}
