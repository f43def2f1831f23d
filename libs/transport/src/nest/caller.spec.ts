import { DomainError, encodeContext, type CallerContext } from '@coffer/contracts';
import { callerFromHeaders, requireCaller } from './caller';

const caller: CallerContext = {
  requestId: 'r',
  namespace: '',
  clientAddress: '10.0.0.1',
  policies: ['root'],
  sudo: true,
  root: true,
};

const failure = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
  }
  throw new Error('expected a DomainError');
};

describe('caller context from headers', () => {
  it('decodes the context the gateway encoded', () => {
    expect(callerFromHeaders(encodeContext(caller))).toEqual(caller);
    expect(requireCaller(encodeContext(caller))).toEqual(caller);
  });

  it('is undefined when absent, and required by requireCaller', () => {
    expect(callerFromHeaders({})).toBeUndefined();
    expect(failure(() => requireCaller({})).toBody()).toEqual({
      code: 'invalid_request',
      message: 'missing caller context',
    });
  });

  it('rejects a header that does not decode', () => {
    const notJson = { 'coffer-ctx': Buffer.from('{').toString('base64url') };
    const wrongShape = { 'coffer-ctx': Buffer.from('{"requestId":1}').toString('base64url') };
    for (const headers of [notJson, wrongShape]) {
      expect(failure(() => callerFromHeaders(headers)).toBody()).toEqual({
        code: 'invalid_request',
        message: 'invalid caller context',
      });
    }
  });
});
