import { DomainError } from '@coffer/contracts';
import { ErrorCode, NatsError } from 'nats';
import { isMaxPayloadError, mapClientError } from './nats-errors';

const map = (error: unknown, write = false) => mapClientError(error, 'kv', 500, write).toBody();

describe('mapClientError', () => {
  it('maps "no responders" to the no-replica error', () => {
    expect(map(NatsError.errorForCode(ErrorCode.NoResponders))).toEqual({
      code: 'service_unavailable',
      message: 'no running replica of the "kv" service',
    });
  });

  it('maps a time-out to service_unavailable', () => {
    expect(map(NatsError.errorForCode(ErrorCode.Timeout))).toEqual({
      code: 'service_unavailable',
      message: 'the "kv" service did not answer within 500 ms',
    });
    expect(map(NatsError.errorForCode(ErrorCode.Timeout), true)).toEqual({
      code: 'service_unavailable',
      message: 'the "kv" service did not answer within 500 ms; the request may have been applied',
    });
  });

  it('maps closed and draining connections to service_unavailable', () => {
    for (const code of [ErrorCode.ConnectionClosed, ErrorCode.ConnectionDraining]) {
      expect(map(NatsError.errorForCode(code))).toEqual({
        code: 'service_unavailable',
        message: 'the transport is closed',
      });
    }
  });

  it('maps an oversized request to payload_too_large', () => {
    expect(map(NatsError.errorForCode(ErrorCode.MaxPayloadExceeded)).code).toBe('payload_too_large');
    expect(isMaxPayloadError(NatsError.errorForCode(ErrorCode.MaxPayloadExceeded))).toBe(true);
    expect(isMaxPayloadError(new Error('x'))).toBe(false);
  });

  it('maps other transport errors to service_unavailable and keeps the code as the cause', () => {
    const mapped = mapClientError(NatsError.errorForCode(ErrorCode.PermissionsViolation), 'kv', 500);
    expect(mapped.toBody()).toEqual({
      code: 'service_unavailable',
      message: 'the "kv" service could not be reached',
    });
    expect((mapped.cause as Error).message).toBe('NATS request failed: PERMISSIONS_VIOLATION');
  });

  it('keeps DomainError and hides anything else behind internal', () => {
    const error = new DomainError('not_found', '');
    expect(mapClientError(error, 'kv', 500)).toBe(error);
    const cause = new SyntaxError('Unexpected token');
    const mapped = mapClientError(cause, 'kv', 500);
    expect(mapped.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    // not logged here: whoever answers the request logs it once, with this cause
    expect(mapped.cause).toBe(cause);
  });
});
