import { z } from 'zod';
import { weakInt } from './fields/weak-fields';
import { engineContract, type RequestOf, type ResponseOf } from './routes';

const mount = { path: 'x/', uuid: 'u', accessor: 'a', type: 't' };
const request = (body: Record<string, unknown>) => ({ operation: 'update', mount, path: 'p', body });

describe('engineContract', () => {
  const contract = engineContract('t.write', {
    body: z.object({ count: weakInt({ default: 1 }) }),
    data: z.object({ count: z.number() }),
  });

  it('parses the body with its own schema and keeps the rest of the request generic', () => {
    const parsed: RequestOf<typeof contract> = contract.request.parse(request({ count: '3', other: 1 }));
    expect(parsed.body).toEqual({ count: 3 });
    expect(parsed.query).toEqual({});
    expect(parsed.params).toEqual({});
    expect(contract.request.parse(request({ count: null })).body.count).toBe(1);
  });

  it('filters the response data through its allow-list', () => {
    const answer: ResponseOf<typeof contract> = { data: { count: 2 } };
    const leaked = { ...answer, data: { count: 2, secret: 'never' } };
    expect(contract.response.parse(leaked).data).toEqual({ count: 2 });
    expect(contract.response.parse({}).data).toBeNull();
    expect(contract.response.parse({ kind: 'raw', body: { any: 1 } })).toMatchObject({ body: { any: 1 } });
  });

  it('filters a raw body through its allow-list and keeps data generic', () => {
    const raw = engineContract('t.raw', { raw: z.object({ sealed: z.boolean() }) });
    const answer: ResponseOf<typeof raw> = { kind: 'raw', status: 503, body: { sealed: true } };
    expect(raw.response.parse({ ...answer, body: { sealed: true, secret: 'never' } })).toMatchObject({
      kind: 'raw',
      status: 503,
      body: { sealed: true },
    });
    expect(raw.response.parse({ ...answer, body: { sealed: true, secret: 'never' } }).body).toEqual({
      sealed: true,
    });
    expect(raw.response.safeParse({ kind: 'raw', body: { sealed: 'no' } }).success).toBe(false);
    expect(raw.response.parse({ data: { any: 1 } }).data).toEqual({ any: 1 });
    expect(raw.schemas.raw).toBeDefined();
  });

  it('keeps a generic body and data when the contract declares none, "__proto__" included', () => {
    const generic = engineContract('t.generic');
    const body = JSON.parse('{"__proto__":"x","constructor":"y"}') as Record<string, unknown>;
    expect(Object.keys(generic.request.parse(request(body)).body)).toEqual(['__proto__', 'constructor']);
    expect(Object.keys(generic.response.parse({ data: body }).data ?? {})).toEqual([
      '__proto__',
      'constructor',
    ]);
    expect(generic.schemas).toEqual({});
  });
});
