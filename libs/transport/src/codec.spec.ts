import { DomainError } from '@coffer/contracts';
import { decodeJson, decodeRequest, encodeJson, roundTrip } from './codec';

describe('codec', () => {
  it('round-trips JSON through bytes', () => {
    const value = { a: 'é ✓', n: [1, 2], nested: { ok: true }, none: null };
    expect(decodeJson(encodeJson(value))).toEqual(value);
  });

  it('sends undefined as an empty payload', () => {
    expect(encodeJson(undefined)).toHaveLength(0);
    expect(decodeJson(new Uint8Array(0))).toBeUndefined();
  });

  it('reports a request that is not JSON as invalid_request', () => {
    const error = (() => {
      try {
        decodeRequest(Buffer.from('{nope'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).toBody()).toEqual({
      code: 'invalid_request',
      message: 'request payload is not valid JSON',
    });
  });

  it('copies deeply and drops what JSON drops', () => {
    const inner = { x: 1 };
    const copy = roundTrip({ inner, gone: undefined, when: new Date(0) });
    expect(copy).toEqual({ inner: { x: 1 }, when: '1970-01-01T00:00:00.000Z' });
    expect(copy.inner).not.toBe(inner);
    expect(roundTrip(undefined)).toBeUndefined();
  });
});
