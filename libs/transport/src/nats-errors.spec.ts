import { DomainError } from '@coffer/contracts';
import { ErrorCode, NatsError } from 'nats';
import { isMaxPayloadError, mapClientError } from './nats-errors';

const logger = () => {
  const lines: string[] = [];
  return { lines, error: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m) };
};
const map = (error: unknown, log = logger()) => mapClientError(error, 'kv.read', 'kv', 500, log).toBody();

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

  it('maps other transport errors to service_unavailable and logs the code', () => {
    const log = logger();
    expect(map(NatsError.errorForCode(ErrorCode.PermissionsViolation), log)).toEqual({
      code: 'service_unavailable',
      message: 'the "kv" service could not be reached',
    });
    expect(log.lines).toEqual(['request to "kv.read" failed on the transport: PERMISSIONS_VIOLATION']);
  });

  it('keeps DomainError and hides anything else behind internal', () => {
    const error = new DomainError('not_found', '');
    expect(mapClientError(error, 'kv.read', 'kv', 500, logger())).toBe(error);
    const log = logger();
    expect(map(new SyntaxError('Unexpected token'), log)).toEqual({
      code: 'internal',
      message: 'internal error',
    });
    expect(log.lines).toEqual(['request to "kv.read" failed: Unexpected token']);
  });
});
