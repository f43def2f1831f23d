import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import {
  DomainError,
  defineBroadcast,
  defineContract,
  encodeContext,
  engineContract,
  weakInt,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { of } from 'rxjs';
import { z } from 'zod';
import { caller, harnesses, rejection, until, type Pair } from '../test-support/transport-harness';
import {
  Caller,
  CofferTransportStrategy,
  Handles,
  OnBroadcast,
  OptionalCaller,
  TransportHeaders,
  createServiceApp,
  type Headers,
} from '../index';

/** The Nest module each harness serves; the bare and unchecked modules below test the strategy alone. */
const changed = defineBroadcast(
  'events.changed',
  z.object({ key: z.string(), tags: z.array(z.string()).default([]) }),
);

const nestGreet = defineContract(
  'nest.greet',
  z.object({ name: z.string() }),
  z.object({ greeting: z.string(), accessor: z.string(), ctxHeader: z.boolean() }),
);
const nestWhoami = defineContract('nest.whoami', z.object({}), z.object({ accessor: z.string().nullable() }));
const nestFail = defineContract('nest.fail', z.object({ kind: z.enum(['domain', 'bug']) }), z.object({}));
const nestStream = defineContract('nest.stream', z.object({}), z.object({ n: z.number() }));
const nestSeen: string[] = [];
/** An engine contract: its body is parsed with weak fields, its response data is an allow-list. */
const nestEngine = engineContract('nest.engine', {
  body: z.object({ count: weakInt({ default: 1 }) }),
  data: z.object({ count: z.number() }),
});

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

  @Handles(nestEngine)
  engine(@Payload() req: RequestOf<typeof nestEngine>): ResponseOf<typeof nestEngine> {
    // A field the response schema does not declare, as a careless service might return.
    const data = { count: req.body.count, secret: 'must not leave' };
    return { data };
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

describe.each(harnesses)(
  'a Nest microservice served through CofferTransportStrategy (%s)',
  (_name, connect) => {
    let pair: Pair;
    let app: INestMicroservice;
    beforeAll(async () => {
      pair = await connect();
      app = await createServiceApp(NestSpecModule, pair.server, 'nest', { logger: false });
    });
    afterAll(async () => {
      await app.close();
      await pair.close();
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

    it('hands the handler the parsed body and strips undeclared response fields', async () => {
      const mount = { path: 'm/', uuid: 'u', accessor: 'a', type: 't' };
      const request = (body: Record<string, unknown>) => ({
        operation: 'update' as const,
        mount,
        path: 'p',
        body,
      });
      const answer = await pair.client.request(nestEngine, request({ count: '3' }));
      expect(answer.data).toEqual({ count: 3 });
      expect(JSON.stringify(answer)).not.toContain('must not leave');
      expect((await pair.client.request(nestEngine, request({ count: null }))).data).toEqual({ count: 1 });
      const bad = await rejection(pair.client.request(nestEngine, request({ count: 'x' })));
      expect(bad.toBody()).toEqual({
        code: 'invalid_request',
        message:
          'Field validation failed: error converting input x for field "count": cannot parse \'x\' as int: strconv.ParseInt: parsing "x": invalid syntax',
      });
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
      expect(
        (await rejection(pair.client.request(defineContract('unchecked.op', z.object({}), z.object({})), {})))
          .code,
      ).toBe('service_unavailable');
    });

    it('delivers broadcasts to @OnBroadcast methods', async () => {
      nestSeen.length = 0;
      await pair.client.publish(changed, { key: 'policy/dev' });
      await pair.client.flush();
      await until(() => nestSeen.length === 1);
      expect(nestSeen).toEqual(['policy/dev']);
    });
  },
);
