import { DomainError, ERROR_CODES, rateLimited, RETRY_AFTER_DATA } from '@coffer/contracts';
import { ERROR_TABLE, multiError, noHandlerError, renderError } from './error-table';
import { GatewayError } from './gateway-error';

describe('error table', () => {
  it('renders go-multierror like Vault', () => {
    expect(multiError('permission denied')).toBe('1 error occurred:\n\t* permission denied\n\n');
    expect(multiError('permission denied', 'invalid token')).toBe(
      '2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n',
    );
  });

  it('has an entry for every DomainError code', () => {
    for (const code of ERROR_CODES) expect(ERROR_TABLE[code]).toBeDefined();
  });

  it.each<[DomainError | GatewayError, number, string[]]>([
    [new DomainError('permission_denied', 'whatever'), 403, ['1 error occurred:\n\t* permission denied\n\n']],
    [
      new DomainError('invalid_token', 'x'),
      403,
      ['2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n'],
    ],
    [new GatewayError('missing_token'), 403, ['permission denied']],
    [new DomainError('forbidden', 'bad token'), 403, ['bad token']],
    [new DomainError('unsupported_path', 'x'), 404, ['1 error occurred:\n\t* unsupported path\n\n']],
    [
      new DomainError('unsupported_operation', 'x'),
      405,
      ['1 error occurred:\n\t* unsupported operation\n\n'],
    ],
    [
      noHandlerError('nomount/data/x/y'),
      404,
      ['no handler for route "nomount/data/x/y". route entry not found.'],
    ],
    [new DomainError('sealed', 'anything'), 503, ['Vault is sealed']],
    [
      new DomainError('service_unavailable', 'no running replica of the "kv" service'),
      503,
      ['no running replica of the "kv" service'],
    ],
    [new DomainError('not_found', ''), 404, []],
    [new DomainError('invalid_request', 'bad input'), 400, ['bad input']],
    [new DomainError('invalid_request', ''), 400, []],
    [new DomainError('internal', 'details'), 500, ['internal error']],
    [new DomainError('payload_too_large', 'x'), 413, ['http: request body too large']],
    [new DomainError('rate_limited', ''), 429, ['rate limit quota exceeded']],
    [new DomainError('not_initialized', ''), 400, ['Vault is not initialized']],
    [new DomainError('upstream_error', 'upstream said no'), 502, ['upstream said no']],
    [new DomainError('precondition_failed', 'later'), 412, ['later']],
    [new GatewayError('unsupported_media_type', 'PATCH requires it'), 415, ['PATCH requires it']],
    [new GatewayError('method_not_allowed'), 405, []],
  ])('%s', (error, status, errors) => {
    const rendered = renderError(error, 'req-1');
    expect(rendered).toEqual({ status, body: { errors }, unexpected: false });
  });

  it('answers a 429 or 503 that says when to come back with Retry-After, in whole seconds', () => {
    expect(renderError(rateLimited('busy', 2.2), 'r')).toEqual({
      status: 429,
      body: { errors: ['busy'] },
      unexpected: false,
      headers: { 'retry-after': '3' },
    });
    const unavailable = new DomainError('service_unavailable', 'later', { [RETRY_AFTER_DATA]: 5 });
    expect(renderError(unavailable, 'r').headers).toEqual({ 'retry-after': '5' });
    // only those codes, and only a usable number
    expect(renderError(new DomainError('invalid_request', 'x', { [RETRY_AFTER_DATA]: 5 }), 'r').headers).toBe(
      undefined,
    );
    expect(
      renderError(new DomainError('rate_limited', 'x', { [RETRY_AFTER_DATA]: 'soon' }), 'r').headers,
    ).toBe(undefined);
  });

  it('returns the envelope with a 404 that carries data (kv v2 deleted version)', () => {
    const rendered = renderError(
      new DomainError('not_found', '', { data: null, metadata: { version: 3 } }, ['w']),
      'req-1',
    );
    expect(rendered.status).toBe(404);
    expect(rendered.body).toEqual({
      request_id: 'req-1',
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: { data: null, metadata: { version: 3 } },
      wrap_info: null,
      warnings: ['w'],
      auth: null,
      errors: [],
    });
  });

  it('returns warnings with a 404 that has no data', () => {
    const rendered = renderError(new DomainError('not_found', '', undefined, ['Invalid path']), 'r');
    expect(rendered.body['warnings']).toEqual(['Invalid path']);
    expect(rendered.body['data']).toBeNull();
  });

  it('hides unknown exceptions behind a 500', () => {
    expect(renderError(new TypeError('secret value in message'), 'r')).toEqual({
      status: 500,
      body: { errors: ['internal error'] },
      unexpected: true,
    });
    expect(renderError('a string', 'r').unexpected).toBe(true);
  });
});
