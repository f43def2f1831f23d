import { context, type Context } from '@opentelemetry/api';
import { DomainError, formatRequestIssues, type Broadcast, type Contract } from '@coffer/contracts';
import type { z } from 'zod';
import { withCallerOf } from './caller-scope';
import { formatIssues, requestIdOf, toDomainError } from './transport-errors';
import { endSpan, serverSpanOptions, startServerSpan } from './tracing';
import { outcomeOf, transportHandlerSeconds } from './transport.metrics';
import type { BroadcastHandler, Headers, RequestHandler, TransportLogger } from './transport-types';

/**
 * The serving half shared by both transports: trace context, request parsing, the handler,
 * response filtering (the response schema is an allow-list: what it does not declare is
 * stripped), and error mapping. Resolves with the response schema's output (what goes
 * on the wire) or rejects with the DomainError to send back.
 */
export type RequestProcessor = (raw: unknown, headers: Headers) => Promise<unknown>;

export function createRequestProcessor<C extends Contract>(
  contract: C,
  queue: string,
  handler: RequestHandler<C>,
  logger: TransportLogger,
): RequestProcessor {
  const subject = contract.subject;
  const spanName = `process ${subject}`;
  const spanOptions = serverSpanOptions(subject, queue);

  const run = async (raw: unknown, headers: Headers): Promise<unknown> => {
    // The contract's request schema is the only parser of a request: the handler gets its output,
    // and a failure answers the text the schema declared (Vault's, for engine contracts).
    const parsed = contract.request.safeParse(raw);
    if (!parsed.success) throw new DomainError('invalid_request', formatRequestIssues(parsed.error));
    // the caller stays current through the handler's async work: the event store records it
    const result = await withCallerOf(headers, () => handler(parsed.data as z.output<C['request']>, headers));
    const checked = contract.response.safeParse(result);
    // A response outside its contract is a bug of this service, never the caller's fault.
    if (!checked.success)
      throw new Error(`response does not match the contract: ${formatIssues(checked.error)}`);
    return checked.data;
  };

  return async (raw, headers) => {
    const ctx: Context = startServerSpan(spanName, spanOptions, headers, queue);
    const done = transportHandlerSeconds.startTimer({ subject, service: queue });
    try {
      const result = await context.with(ctx, run, undefined, raw, headers);
      endSpan(ctx);
      done({ outcome: 'ok' });
      return result;
    } catch (error) {
      // inside the span's context, so that the log line names the trace
      const domainError = context.with(ctx, () =>
        toDomainError(error, subject, logger, requestIdOf(headers)),
      );
      endSpan(ctx, domainError);
      done({ outcome: outcomeOf(domainError) });
      throw domainError;
    }
  };
}

/** Subscriber side of a broadcast: validate, run, log failures (there is nobody to answer). */
export type BroadcastProcessor = (raw: unknown) => Promise<void>;

export function createBroadcastProcessor<B extends Broadcast>(
  subject: string,
  broadcast: B,
  handler: BroadcastHandler<B>,
  logger: TransportLogger,
): BroadcastProcessor {
  return async (raw) => {
    const parsed = broadcast.payload.safeParse(raw);
    if (!parsed.success) {
      logger.warn(
        `dropped a "${subject}" broadcast that does not match its schema: ${formatIssues(parsed.error)}`,
      );
      return;
    }
    try {
      await handler(parsed.data as z.output<B['payload']>);
    } catch (error) {
      if (error instanceof DomainError) logger.warn(`"${subject}" broadcast handler failed: ${error.code}`);
      else toDomainError(error, subject, logger);
    }
  };
}

/** Publisher side: a broadcast outside its schema is the publisher's bug; fail loudly there. */
export function validateBroadcast<P>(subject: string, schema: z.ZodType<P>, payload: unknown): P {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw new DomainError('invalid_request', `invalid "${subject}" broadcast: ${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}
