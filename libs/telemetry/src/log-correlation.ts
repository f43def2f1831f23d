import { ConsoleLogger, Logger } from '@nestjs/common';
import { context, createContextKey, isSpanContextValid, trace, type Context } from '@opentelemetry/api';

/** Context key holding Vault's request_id of the HTTP request being served (set by the gateway). */
export const REQUEST_ID_CONTEXT_KEY = createContextKey('coffer.request_id');

/** Runs `work` with `requestId` in its context: log lines written meanwhile name it. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return context.with(context.active().setValue(REQUEST_ID_CONTEXT_KEY, requestId), work);
}

/**
 * What ties a log line to its trace: " trace_id=<32 hex>" while a span is active (a request, a
 * job run), plus " request_id=<uuid>" where the request id is known; "" otherwise.
 */
export function logCorrelation(ctx: Context = context.active()): string {
  const span = trace.getSpanContext(ctx);
  const requestId = ctx.getValue(REQUEST_ID_CONTEXT_KEY);
  let tag = '';
  if (span !== undefined && isSpanContextValid(span)) tag += ` trace_id=${span.traceId}`;
  if (typeof requestId === 'string') tag += ` request_id=${requestId}`;
  return tag;
}

const correlated = (message: unknown): unknown =>
  typeof message === 'string' ? `${message}${logCorrelation()}` : message;

/**
 * Nest's console logger, each line tagged with logCorrelation(): a line written while serving a
 * request leads to its spans (and its audit entries, which carry the same ids).
 */
export class CorrelatedConsoleLogger extends ConsoleLogger {
  override log(message: unknown, ...rest: unknown[]): void {
    super.log(correlated(message), ...rest);
  }
  override error(message: unknown, ...rest: unknown[]): void {
    super.error(correlated(message), ...rest);
  }
  override warn(message: unknown, ...rest: unknown[]): void {
    super.warn(correlated(message), ...rest);
  }
  override debug(message: unknown, ...rest: unknown[]): void {
    super.debug(correlated(message), ...rest);
  }
  override verbose(message: unknown, ...rest: unknown[]): void {
    super.verbose(correlated(message), ...rest);
  }
  override fatal(message: unknown, ...rest: unknown[]): void {
    super.fatal(correlated(message), ...rest);
  }
}

/**
 * Makes every Nest Logger of the process write through CorrelatedConsoleLogger. The log levels a
 * Nest app is later created with (`logger: LogLevel[]`) still apply: Nest sets them on it.
 */
export function installCorrelatedLogger(): void {
  Logger.overrideLogger(new CorrelatedConsoleLogger());
}
