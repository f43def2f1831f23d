import type { LoggerService } from '@nestjs/common';
import { call, startHarness, type Harness } from './harness';

/**
 * Every 5xx reaches the logs exactly once, across the gateway and the engine (here: the in-process
 * transport's serving side), with the request id, the route or subject, the code and the cause;
 * never a token or a body. 4xx are not logged as errors.
 */

const SECRET = 'hunter2-very-secret-value';

interface Captured {
  errors: string[];
  all: string[];
}

function capture(): { captured: Captured; gatewayLogger: LoggerService; transportLogger: LoggerService } {
  const captured: Captured = { errors: [], all: [] };
  const line = (message: unknown, stack?: unknown): string =>
    `${String(message)}${typeof stack === 'string' ? `\n${stack}` : ''}`;
  const logger: LoggerService = {
    log: (m: unknown) => void captured.all.push(line(m)),
    warn: (m: unknown) => void captured.all.push(line(m)),
    error: (m: unknown, stack?: unknown) => {
      captured.errors.push(line(m, stack));
      captured.all.push(line(m, stack));
    },
  };
  return { captured, gatewayLogger: logger, transportLogger: logger };
}

describe('error logging', () => {
  let h: Harness;
  let captured: Captured;
  beforeAll(async () => {
    const c = capture();
    captured = c.captured;
    h = await startHarness({ logger: c.gatewayLogger }, c.transportLogger);
  });
  afterAll(async () => {
    await h.close();
  });

  /** The error lines a request produced (the gateway logs before it answers). */
  async function errorsOf(
    send: () => Promise<{ status: number }>,
  ): Promise<{ status: number; lines: string[] }> {
    const before = captured.errors.length;
    const { status } = await send();
    return { status, lines: captured.errors.slice(before) };
  }

  const noSecretAnywhere = (): void => {
    for (const line of captured.all) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain('root-token');
    }
  };

  it('logs an engine handler that throws once, with request id, subject, code and cause', async () => {
    const { status, lines } = await errorsOf(() =>
      call(h, 'PUT', '/v1/test/special/boom', { body: { password: SECRET } }),
    );
    expect(status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^request [0-9a-f-]{36} to "testeng\.special" failed: internal: Error: secret-bearing internal failure\n/,
    );
    noSecretAnywhere();
  });

  it('logs a DomainError("internal") (a barrier MAC failure) once, where it happened', async () => {
    const { status, lines } = await errorsOf(() =>
      call(h, 'PUT', '/v1/test/special/corrupt', { body: { value: SECRET } }),
    );
    expect(status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^request [0-9a-f-]{36} to "testeng\.special" failed: internal: DomainError: barrier: message authentication failed/,
    );
    noSecretAnywhere();
  });

  it('logs a gateway-side 5xx once with the route template', async () => {
    const c = capture();
    const h2 = await startHarness({ logger: c.gatewayLogger, engineTimeoutMs: 100 }, c.transportLogger);
    let release: () => void = () => undefined;
    h2.engine.hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const res = await call(h2, 'GET', '/v1/test/slow', { headers: { 'x-secret': SECRET } });
      expect(res.status).toBe(503);
      expect(c.captured.errors).toHaveLength(1);
      expect(c.captured.errors[0]).toMatch(
        /^request [0-9a-f-]{36} GET testeng slow failed: 503 service_unavailable: DomainError: the "testeng" service did not answer within 100 ms/,
      );
      for (const line of c.captured.all) expect(line).not.toContain(SECRET);
    } finally {
      release();
      await h2.close();
    }
  });

  it.each([
    ['a 400', 'PUT', '/v1/test/special/bad', 400],
    ['a 403 from the engine', 'PUT', '/v1/test/special/denied', 403],
    ['a 404', 'PUT', '/v1/test/special/gone', 404],
    ['a 405', 'DELETE', '/v1/test/special/x', 405],
  ])('logs nothing for %s', async (_name, method, path, expected) => {
    const { status, lines } = await errorsOf(() => call(h, method, path, { body: { v: SECRET } }));
    expect(status).toBe(expected);
    expect(lines).toEqual([]);
  });

  it('logs nothing for a missing or invalid token', async () => {
    for (const token of [null, 'not-a-token']) {
      const { status, lines } = await errorsOf(() => call(h, 'GET', '/v1/test/echo/x', { token }));
      expect(status).toBe(403);
      expect(lines).toEqual([]);
    }
    noSecretAnywhere();
  });
});
