import { DomainError } from '@coffer/contracts';
import { ErrorCode, NatsError } from 'nats';
import { closedError, internalError, noReplicaError, timeoutError } from './transport-errors';

type Mapper = (service: string, timeoutMs: number, write: boolean) => DomainError;

const BY_CODE: ReadonlyMap<string, Mapper> = new Map<string, Mapper>([
  [ErrorCode.NoResponders, (service) => noReplicaError(service)],
  [ErrorCode.Timeout, (service, timeoutMs, write) => timeoutError(service, timeoutMs, write)],
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
 * cannot read is our bug (internal). Nothing is logged here: the error keeps its cause, and
 * whoever answers the request (the gateway, or the engine that made this call) logs it once.
 */
export function mapClientError(
  error: unknown,
  service: string,
  timeoutMs: number,
  write = false,
): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof NatsError) {
    const known = BY_CODE.get(error.code);
    if (known !== undefined) return known(service, timeoutMs, write);
    const unreachable = new DomainError(
      'service_unavailable',
      `the "${service}" service could not be reached`,
    );
    unreachable.cause = new Error(`NATS request failed: ${error.code}`);
    return unreachable;
  }
  return internalError(error);
}

export const isMaxPayloadError = (error: unknown): boolean =>
  error instanceof NatsError && error.code === (ErrorCode.MaxPayloadExceeded as string);
