import { waitFor } from '@coffer/testing';
import { call, rawExchange, startHarness, statusesOf } from './harness';

describe('gateway shutdown and ops health', () => {
  it('answers 503 on /health during the graceful wait while still serving requests, then closes', async () => {
    const h = await startHarness({ gracefulShutdownWaitSeconds: 0.6 });
    const ops = h.gateway.opsAddress ?? '';
    expect((await fetch(`${ops}/health`)).status).toBe(200);
    const closing = h.gateway.close();
    expect((await fetch(`${ops}/health`)).status).toBe(503);
    expect((await call(h, 'GET', '/v1/test/echo/during-wait')).status).toBe(200);
    await closing;
    await expect(fetch(`${h.url}/v1/test/echo/after`)).rejects.toThrow();
    await expect(fetch(`${ops}/health`)).rejects.toThrow();
    await h.transport.close();
  });

  it('closes at once without a graceful wait and lets in-flight requests finish', async () => {
    const h = await startHarness();
    let release: () => void = () => undefined;
    h.engine.hold = new Promise<void>((resolve) => (release = resolve));
    const slow = call(h, 'GET', '/v1/test/slow');
    await waitFor(() => h.engine.slowStarted);
    const closing = h.gateway.close();
    release();
    expect(await slow).toMatchObject({ status: 200, body: { data: { slow: true } } });
    await closing;
    await h.transport.close();
  });

  it("never answers in Fastify's own 503 shape while closing", async () => {
    const h = await startHarness();
    let release: () => void = () => undefined;
    h.engine.hold = new Promise<void>((resolve) => (release = resolve));
    const token = 'X-Service-Token: root-token\r\n';
    // the second request is handled once the first is answered, by then with the server closing
    const exchange = rawExchange(
      h.url,
      `GET /v1/test/slow HTTP/1.1\r\nHost: x\r\n${token}\r\n` +
        `GET /v1/test/echo/late HTTP/1.1\r\nHost: x\r\n${token}\r\n`,
    );
    await waitFor(() => h.engine.slowStarted);
    const closing = h.gateway.close();
    await waitFor(async () => {
      try {
        await fetch(`${h.url}/v1/test/echo/probe`);
        return false;
      } catch {
        return true;
      }
    });
    release();
    const raw = await exchange;
    await closing;
    await h.transport.close();
    expect(statusesOf(raw)[0]).toBe(200);
    expect(raw).not.toContain('"error":');
    for (const status of statusesOf(raw).slice(1)) expect([200, 503]).toContain(status);
  });
});
