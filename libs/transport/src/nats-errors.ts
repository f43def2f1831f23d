import { DomainError } from '@coffer/contracts';
import { ErrorCode, NatsError } from 'nats';
import { INTERNAL_MESSAGE, closedError, noReplicaError, timeoutError } from './errors';
import type { TransportLogger } from './types';

const BY_CODE: ReadonlyMap<string, (service: string, timeoutMs: number) => DomainError> = new Map([
  [ErrorCode.NoResponders, (service: string) => noReplicaError(service)],
  [ErrorCode.Timeout, (service: string, timeoutMs: number) => timeoutError(service, timeoutMs)],
  [
    ErrorCode.MaxPayloadExceeded,
    () => new DomainError('payload_too_large', 'request payload exceeds the transport limit'),
  ],
  [ErrorCode.ConnectionClosed, () => closedError()],
  [ErrorCode.ConnectionDraining, () => closedError()],
]);

/**
 * What a failed NATS request means to the caller: reaching nobody (no responders, time-out,
 * connection gone) is service_unavailable, an oversized request payload_too_large, and a reply we
 * cannot read is our bug (internal).
 */
export function mapClientError(
  error: unknown,
  subject: string,
  service: string,
  timeoutMs: number,
  logger: TransportLogger,
): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof NatsError) {
    const known = BY_CODE.get(error.code);
    if (known !== undefined) return known(service, timeoutMs);
    logger.warn(`request to "${subject}" failed on the transport: ${error.code}`);
    return new DomainError('service_unavailable', `the "${service}" service could not be reached`);
  }
  if (error instanceof Error) logger.error(`request to "${subject}" failed: ${error.message}`, error.stack);
  return new DomainError('internal', INTERNAL_MESSAGE);
}

export const isMaxPayloadError = (error: unknown): boolean =>
  error instanceof NatsError && error.code === (ErrorCode.MaxPayloadExceeded as string);
