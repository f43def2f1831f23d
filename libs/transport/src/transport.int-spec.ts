import {
  DomainError,
  callerContextSchema,
  decodeContext,
  defineBroadcast,
  defineContract,
  encodeContext,
  type Contract,
} from '@coffer/contracts';
import { z } from 'zod';
import { wasLogged, type RequestHandler } from './index';
import {
  CapturingLogger,
  caller,
  harnesses,
  rejection,
  until,
  type Pair,
} from './test-support/transport-harness';

/** One behaviour suite, run against NATS and the in-process bus (see the harness). */

const empty = (subject: string) => defineContract(subject, z.object({}), z.object({ ok: z.boolean() }));
const echo = (subject: string) =>
  defineContract(
    subject,
    z.object({ text: z.string().min(1), n: z.number().int().default(1) }),
    z.object({ text: z.string(), n: z.number(), by: z.string(), tag: z.string().default('none') }),
  );

describe.each(harnesses)('%s transport', (_name, connect) => {
  const logger = new CapturingLogger();
  let pair: Pair;

  beforeAll(async () => {
    pair = await connect(logger);
  });
  afterAll(async () => {
    await pair.close();
  });

  /** Serves and waits until the bus knows it (NATS: the SUB reached the server). */
  async function serve<C extends Contract>(
    contract: C,
    queue: string,
    handler: RequestHandler<C>,
  ): Promise<void> {
    pair.server.serve(contract, queue, handler);
    await pair.server.flush();
  }

  it('answers a request, with defaults applied by both schemas', async () => {
    const contract = echo('svc.echo');
    await serve(contract, 'svc', async (req) => ({ text: req.text, n: req.n, by: 'a' }));
    await expect(pair.client.request(contract, { text: 'hi' })).resolves.toEqual({
      text: 'hi',
      n: 1,
      by: 'a',
      tag: 'none',
    });
  });

  it('rejects an invalid request on the server without running the handler', async () => {
    const contract = echo('svc.strict');
    let calls = 0;
    await serve(contract, 'svc', async (req) => {
      calls++;
      return { text: req.text, n: req.n, by: 'a' };
    });
    const error = await rejection(pair.client.request(contract, { text: '', n: 1.5 }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^text: .+; n: .+$/);
    expect(calls).toBe(0);
  });

  it('copies payloads both ways: nothing is shared by reference', async () => {
    const contract = defineContract(
      'svc.copy',
      z.object({ list: z.array(z.number()) }),
      z.object({ list: z.array(z.number()) }),
    );
    const kept: number[][] = [];
    await serve(contract, 'svc', async (req) => {
      req.list.push(99);
      kept.push(req.list);
      return req;
    });
    const sent = { list: [1] };
    const reply = await pair.client.request(contract, sent);
    expect(sent.list).toEqual([1]);
    expect(reply.list).toEqual([1, 99]);
    reply.list.push(7);
    expect(kept[0]).toEqual([1, 99]);
  });

  it('shares the load between the servers of one queue group', async () => {
    const contract = echo('svc.shared');
    await serve(contract, 'svc', async (req) => ({ text: req.text, n: req.n, by: 'a' }));
    await serve(contract, 'svc', async (req) => ({ text: req.text, n: req.n, by: 'b' }));
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => pair.client.request(contract, { text: `m${i}` })),
    );
    const by = replies.map((r) => r.by);
    expect(by.filter((b) => b === 'a').length).toBeGreaterThan(0);
    expect(by.filter((b) => b === 'b').length).toBeGreaterThan(0);
  });

  it('passes a DomainError through with its data and warnings', async () => {
    const contract = empty('svc.domain');
    await serve(contract, 'svc', async () => {
      throw new DomainError('not_found', '', { versions: { '1': { destroyed: true } } }, ['soft-deleted']);
    });
    const error = await rejection(pair.client.request(contract, {}));
    expect(error.toBody()).toEqual({
      code: 'not_found',
      message: '',
      data: { versions: { '1': { destroyed: true } } },
      warnings: ['soft-deleted'],
    });
  });

  it('turns any other error into internal, logged on the server without the payload', async () => {
    const contract = defineContract('svc.bug', z.object({ secret: z.string() }), z.object({}));
    await serve(contract, 'svc', async () => {
      throw new RangeError('index out of range');
    });
    const error = await rejection(pair.client.request(contract, { secret: 's3cr3t-value' }));
    expect(error.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    const line = logger.lines.find((l) => l.includes('svc.bug'));
    expect(line).toContain('index out of range');
    expect(logger.lines.join('\n')).not.toContain('s3cr3t-value');
  });

  it('logs a server fault once with the request id of the caller, marked as logged', async () => {
    const contract = empty('svc.mac');
    await serve(contract, 'svc', async () => {
      throw new DomainError('internal', 'barrier: message authentication failed');
    });
    const before = logger.lines.length;
    const headers = encodeContext({ ...caller, requestId: 'req-mac-1' });
    const error = await rejection(pair.client.request(contract, {}, { headers }));
    expect(error.toBody()).toEqual({ code: 'internal', message: 'barrier: message authentication failed' });
    expect(wasLogged(error)).toBe(true);
    const lines = logger.lines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('request req-mac-1 to "svc.mac" failed: internal: DomainError: barrier');
  });

  it('logs no 4xx and leaves a 503 of its own unmarked for the caller to log', async () => {
    const contract = empty('svc.expected');
    await serve(contract, 'svc', async () => {
      throw new DomainError('invalid_request', 'bad input');
    });
    const before = logger.lines.length;
    const error = await rejection(pair.client.request(contract, {}));
    expect(error.code).toBe('invalid_request');
    expect(wasLogged(error)).toBe(false);
    const timeout = await rejection(pair.client.request(empty('ghost.write'), {}, { write: true }));
    expect(wasLogged(timeout)).toBe(false);
    expect(logger.lines.slice(before)).toEqual([]);
  });

  it('treats a response outside its contract as internal', async () => {
    const contract = echo('svc.badresponse');
    await serve(contract, 'svc', async () => ({ text: 'x', n: 'one' }) as never);
    const error = await rejection(pair.client.request(contract, { text: 'x' }));
    expect(error.code).toBe('internal');
    expect(logger.lines.some((l) => l.includes('svc.badresponse') && l.includes('contract'))).toBe(true);
  });

  it('fails at once with service_unavailable when nobody serves the subject', async () => {
    const started = Date.now();
    const error = await rejection(pair.client.request(empty('ghost.ping'), {}, { timeoutMs: 10_000 }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.toBody()).toEqual({
      code: 'service_unavailable',
      message: 'no running replica of the "ghost" service',
    });
  });

  it('fails with service_unavailable when the server does not answer in time', async () => {
    const contract = empty('slow.op');
    let release: (() => void) | undefined;
    const pending = new Promise<void>((resolve) => (release = resolve));
    await serve(contract, 'slow', async () => {
      await pending;
      return { ok: true };
    });
    const started = Date.now();
    const error = await rejection(pair.client.request(contract, {}, { timeoutMs: 150 }));
    release?.();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(error.code).toBe('service_unavailable');
    expect(error.message).toContain('"slow"');
  });

  it('stops serving after unsubscribe', async () => {
    const contract = empty('gone.op');
    const subscription = pair.server.serve(contract, 'gone', async () => ({ ok: true }));
    await pair.server.flush();
    await expect(pair.client.request(contract, {})).resolves.toEqual({ ok: true });
    subscription.unsubscribe();
    await pair.server.flush();
    expect((await rejection(pair.client.request(contract, {}))).code).toBe('service_unavailable');
  });

  it('carries the caller context in headers', async () => {
    const contract = defineContract(
      'svc.whoami',
      z.object({}),
      z.object({ caller: callerContextSchema.nullable(), other: z.string().nullable() }),
    );
    await serve(contract, 'svc', async (_req, headers) => ({
      caller: decodeContext(headers) ?? null,
      other: headers['x-extra'] ?? null,
    }));
    const reply = await pair.client.request(
      contract,
      {},
      { headers: { ...encodeContext(caller), 'x-extra': 'yes' } },
    );
    expect(reply).toEqual({ caller: callerContextSchema.parse(caller), other: 'yes' });
    await expect(pair.client.request(contract, {})).resolves.toEqual({ caller: null, other: null });
  });

  it('delivers a broadcast to every subscriber, validated on both ends', async () => {
    const broadcast = defineBroadcast('events.spec', z.object({ key: z.string(), n: z.number().default(0) }));
    const a: unknown[] = [];
    const b: unknown[] = [];
    pair.server.subscribe(broadcast, (event) => void a.push(event));
    pair.client.subscribe(broadcast, async (event) => void b.push(event));
    await Promise.all([pair.server.flush(), pair.client.flush()]);
    await pair.client.publish(broadcast, { key: 'k1' });
    await pair.client.flush();
    await until(() => a.length === 1 && b.length === 1);
    expect(a).toEqual([{ key: 'k1', n: 0 }]);
    expect(b).toEqual([{ key: 'k1', n: 0 }]);
    expect(a[0]).not.toBe(b[0]);
    const error = await rejection(pair.client.publish(broadcast, { key: 7 } as never));
    expect(error.code).toBe('invalid_request');
  });
});

describe.each(harnesses)('%s transport close()', (_name, connect) => {
  it('lets in-flight handlers answer, then serves nobody', async () => {
    const pair = await connect();
    const contract = empty('closing.op');
    let started = false;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    pair.server.serve(contract, 'closing', async () => {
      started = true;
      await gate;
      return { ok: true };
    });
    await pair.server.flush();

    const reply = pair.client.request(contract, {});
    await until(() => started);
    const closing = pair.server.close();
    release?.();
    await expect(reply).resolves.toEqual({ ok: true });
    await closing;

    const after = await rejection(pair.client.request(contract, {}));
    expect(after.code).toBe('service_unavailable');
    await pair.close();
  });
});
