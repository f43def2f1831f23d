import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DomainError,
  callerContextSchema,
  decodeContext,
  defineBroadcast,
  defineContract,
  encodeContext,
  type CallerContext,
  type Contract,
} from '@coffer/contracts';
import { NestFactory } from '@nestjs/core';
import { of } from 'rxjs';
import { z } from 'zod';
import {
  Caller,
  CofferTransportStrategy,
  Handles,
  InProcessTransport,
  OnBroadcast,
  OptionalCaller,
  TransportHeaders,
  connectNatsTransport,
  createServiceApp,
  type Headers,
  type RequestHandler,
  type Transport,
  type TransportLogger,
} from './index';

/**
 * One behaviour suite, run against NATS (two connections, as two processes would have) and
 * against the in-process bus: both must be indistinguishable to a service.
 */

const NATS_URL = 'nats://127.0.0.1:4222';

class CapturingLogger implements TransportLogger {
  readonly lines: string[] = [];
  error(message: string, stack?: string): void {
    this.lines.push(`error ${message} ${stack ?? ''}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
}

interface Pair {
  /** the serving side */
  server: Transport;
  /** the calling side (the same object in-process) */
  client: Transport;
  close(): Promise<void>;
}

const harnesses: [string, (logger: TransportLogger) => Promise<Pair>][] = [
  [
    'nats',
    async (logger) => {
      const subjectPrefix = `t${process.pid}${Date.now()}`;
      const server = await connectNatsTransport({
        servers: NATS_URL,
        subjectPrefix,
        name: 'spec-server',
        logger,
      });
      const client = await connectNatsTransport({
        servers: NATS_URL,
        subjectPrefix,
        name: 'spec-client',
        logger,
      });
      return {
        server,
        client,
        close: async () => void (await Promise.all([server.close(), client.close()])),
      };
    },
  ],
  [
    'in-process',
    async (logger) => {
      const bus = new InProcessTransport({ subjectPrefix: 'dev', logger });
      return { server: bus, client: bus, close: () => bus.close() };
    },
  ],
];

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a rejection');
}

const caller: CallerContext = {
  requestId: 'req-1',
  namespace: 'ns1/',
  clientAddress: '127.0.0.1',
  accessor: 'acc-1',
  sudo: false,
  policies: ['default', 'dev'],
  root: false,
};

const echo = (subject: string) =>
  defineContract(
    subject,
    z.object({ text: z.string().min(1), n: z.number().int().default(1) }),
    z.object({ text: z.string(), n: z.number(), by: z.string(), tag: z.string().default('none') }),
  );
const empty = (subject: string) => defineContract(subject, z.object({}), z.object({ ok: z.boolean() }));
const changed = defineBroadcast(
  'events.changed',
  z.object({ key: z.string(), tags: z.array(z.string()).default([]) }),
);

// --- the Nest service used by the last test of the suite -------------------------------------
const nestGreet = defineContract(
  'nest.greet',
  z.object({ name: z.string() }),
  z.object({ greeting: z.string(), accessor: z.string(), ctxHeader: z.boolean() }),
);
const nestWhoami = defineContract('nest.whoami', z.object({}), z.object({ accessor: z.string().nullable() }));
const nestFail = defineContract('nest.fail', z.object({ kind: z.enum(['domain', 'bug']) }), z.object({}));
const nestStream = defineContract('nest.stream', z.object({}), z.object({ n: z.number() }));
const nestSeen: string[] = [];

@Controller()
class NestSpecHandlers {
  @Handles(nestGreet)
  greet(
    @Payload() req: { name: string },
    @Caller() who: CallerContext,
    @TransportHeaders() headers: Headers,
  ): Promise<z.input<typeof nestGreet.response>> {
    return Promise.resolve({
      greeting: `hello ${req.name}`,
      accessor: who.accessor ?? '',
      ctxHeader: 'coffer-ctx' in headers,
    });
  }

  @Handles(nestWhoami)
  whoami(@OptionalCaller() who: CallerContext | undefined): { accessor: string | null } {
    return { accessor: who?.accessor ?? null };
  }

  @Handles(nestFail)
  fail(@Payload() req: { kind: 'domain' | 'bug' }): Promise<object> {
    if (req.kind === 'domain')
      throw new DomainError('precondition_failed', 'check-and-set mismatch', { v: 3 });
    return Promise.reject(new TypeError('boom'));
  }

  @Handles(nestStream)
  stream() {
    return of({ n: 1 }, { n: 2 });
  }

  @OnBroadcast(changed)
  onChanged(@Payload() event: { key: string }): void {
    nestSeen.push(event.key);
  }
}

@Module({ controllers: [NestSpecHandlers] })
class NestSpecModule {}

/** Served by a bare NestFactory app: only the strategy, no global filter from createServiceApp. */
const bareFail = defineContract('bare.fail', z.object({}), z.object({}));
@Controller()
class BareHandlers {
  @Handles(bareFail)
  fail(@Caller() who: CallerContext): object {
    throw new DomainError('permission_denied', `denied for ${who.requestId}`);
  }
}
@Module({ controllers: [BareHandlers] })
class BareModule {}

/** A bare @MessagePattern has no contract to validate with: the app must refuse to start. */
@Controller()
class UncheckedHandlers {
  @MessagePattern('unchecked.op')
  op(): object {
    return {};
  }
}
@Module({ controllers: [UncheckedHandlers] })
class UncheckedModule {}

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

  describe('a Nest microservice served through CofferTransportStrategy', () => {
    let app: INestMicroservice;
    beforeAll(async () => {
      app = await createServiceApp(NestSpecModule, pair.server, 'nest', { logger: false });
    });
    afterAll(async () => {
      await app.close();
    });

    it('serves @Handles methods with @Caller and raw headers', async () => {
      await expect(
        pair.client.request(nestGreet, { name: 'ada' }, { headers: encodeContext(caller) }),
      ).resolves.toEqual({ greeting: 'hello ada', accessor: 'acc-1', ctxHeader: true });
      await expect(pair.client.request(nestWhoami, {})).resolves.toEqual({ accessor: null });
      await expect(pair.client.request(nestWhoami, {}, { headers: encodeContext(caller) })).resolves.toEqual({
        accessor: 'acc-1',
      });
    });

    it('rejects a request without the caller context a handler requires', async () => {
      const error = await rejection(pair.client.request(nestGreet, { name: 'ada' }));
      expect(error.toBody()).toEqual({ code: 'invalid_request', message: 'missing caller context' });
      const garbled = await rejection(
        pair.client.request(nestGreet, { name: 'ada' }, { headers: { 'coffer-ctx': '!' } }),
      );
      expect(garbled.toBody()).toEqual({ code: 'invalid_request', message: 'invalid caller context' });
    });

    it('keeps DomainError intact and hides other errors', async () => {
      const domain = await rejection(pair.client.request(nestFail, { kind: 'domain' }));
      expect(domain.toBody()).toEqual({
        code: 'precondition_failed',
        message: 'check-and-set mismatch',
        data: { v: 3 },
      });
      const bug = await rejection(pair.client.request(nestFail, { kind: 'bug' }));
      expect(bug.toBody()).toEqual({ code: 'internal', message: 'internal error' });
    });

    it('answers with the last value of an Observable', async () => {
      await expect(pair.client.request(nestStream, {})).resolves.toEqual({ n: 2 });
    });

    it('needs nothing from the app but the strategy to pass DomainError through', async () => {
      const bare = await NestFactory.createMicroservice(BareModule, {
        strategy: new CofferTransportStrategy(pair.server, 'bare'),
        logger: false,
      });
      await bare.listen();
      try {
        const denied = await rejection(pair.client.request(bareFail, {}, { headers: encodeContext(caller) }));
        expect(denied.toBody()).toEqual({ code: 'permission_denied', message: 'denied for req-1' });
        const anonymous = await rejection(pair.client.request(bareFail, {}));
        expect(anonymous.toBody()).toEqual({ code: 'invalid_request', message: 'missing caller context' });
      } finally {
        await bare.close();
      }
    });

    it('refuses to start with a handler that has no contract', async () => {
      await expect(
        createServiceApp(UncheckedModule, pair.server, 'unchecked', { logger: false }),
      ).rejects.toThrow('message handler "unchecked.op" has no contract: use @Handles');
      expect((await rejection(pair.client.request(empty('unchecked.op'), {}))).code).toBe(
        'service_unavailable',
      );
    });

    it('delivers broadcasts to @OnBroadcast methods', async () => {
      nestSeen.length = 0;
      await pair.client.publish(changed, { key: 'policy/dev' });
      await pair.client.flush();
      await until(() => nestSeen.length === 1);
      expect(nestSeen).toEqual(['policy/dev']);
    });
  });
});

describe.each(harnesses)('%s transport close()', (_name, connect) => {
  it('lets in-flight handlers answer, then serves nobody', async () => {
    const pair = await connect(new CapturingLogger());
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
