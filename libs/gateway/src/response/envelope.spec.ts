import { DomainError, engineResponseSchema, type EngineResponse, type Operation } from '@coffer/contracts';
import { renderEngineResponse } from './envelope';

const render = (res: EngineResponse, op: Operation = 'read') =>
  renderEngineResponse(engineResponseSchema.parse(res), op, 'req-1');
const caught = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('did not throw');
};

describe('renderEngineResponse', () => {
  it('wraps data in the envelope', () => {
    const result = render({
      data: { a: 1 },
      warnings: ['w'],
      lease: { lease_id: 'l', lease_duration: 60, renewable: true },
    });
    expect(result.status).toBe(200);
    expect(result.contentType).toBe('application/json');
    expect(JSON.parse(result.body ?? '')).toEqual({
      request_id: 'req-1',
      lease_id: 'l',
      renewable: true,
      lease_duration: 60,
      data: { a: 1 },
      wrap_info: null,
      warnings: ['w'],
      auth: null,
    });
  });

  it('renders no warnings as null and keeps the field order', () => {
    const body = render({ data: {} }).body ?? '';
    expect(Object.keys(JSON.parse(body))).toEqual([
      'request_id',
      'lease_id',
      'renewable',
      'lease_duration',
      'data',
      'wrap_info',
      'warnings',
      'auth',
    ]);
    expect(JSON.parse(body).warnings).toBeNull();
  });

  it('answers 204 for a write with nothing to return and 404 for such a read', () => {
    for (const op of ['create', 'update', 'delete', 'patch'] as const) {
      expect(render({}, op)).toEqual({ status: 204, body: undefined, contentType: 'application/json' });
    }
    expect(caught(() => render({}, 'read')).code).toBe('not_found');
  });

  it('answers 200 for a write with warnings, and honours an explicit status', () => {
    expect(render({ warnings: ['careful'] }, 'update').status).toBe(200);
    const accepted = render({ status: 202, warnings: ['started'] }, 'update');
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body ?? '').warnings).toEqual(['started']);
  });

  it('answers 404 for an empty LIST', () => {
    expect(caught(() => render({ data: { keys: [] } }, 'list')).code).toBe('not_found');
    expect(caught(() => render({ data: null }, 'list')).code).toBe('not_found');
    expect(caught(() => render({ data: { other: 1 } }, 'list')).code).toBe('not_found');
    expect(render({ data: { keys: ['a'] } }, 'list').status).toBe(200);
  });

  it('puts data at the top level too for injected responses (envelope wins clashes)', () => {
    const body = JSON.parse(render({ kind: 'injected', data: { keys: ['x'], request_id: 'no' } }).body ?? '');
    expect(body.keys).toEqual(['x']);
    expect(body.data).toEqual({ keys: ['x'], request_id: 'no' });
    expect(body.request_id).toBe('req-1');
  });

  it('passes raw bodies through with their status and content type', () => {
    expect(render({ kind: 'raw', body: { initialized: true } })).toEqual({
      status: 200,
      body: '{"initialized":true}',
      contentType: 'application/json',
    });
    expect(render({ kind: 'raw', status: 503, body: { sealed: true } }).status).toBe(503);
    expect(
      render({ kind: 'raw', body: '-----BEGIN X509 CRL-----', contentType: 'application/pkix-crl' }),
    ).toEqual({
      status: 200,
      body: '-----BEGIN X509 CRL-----',
      contentType: 'application/pkix-crl',
    });
    expect(render({ kind: 'raw', status: 204 }).body).toBeUndefined();
  });

  it('lets a raw answer set only the allowed response headers', () => {
    const headers = { 'Cache-Control': 'max-age=3600', 'WWW-Authenticate': 'Basic', 'set-cookie': 'x=1' };
    expect(render({ kind: 'raw', body: {}, headers }).headers).toEqual({
      'cache-control': 'max-age=3600',
      'www-authenticate': 'Basic',
    });
    expect(render({ kind: 'raw', body: {}, headers: { location: 'https://evil' } }).headers).toBeUndefined();
  });
});
