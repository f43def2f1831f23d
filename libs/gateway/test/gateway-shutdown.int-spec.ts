import { waitFor } from '@coffer/testing';
import { call, startHarness } from './harness';

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
});
