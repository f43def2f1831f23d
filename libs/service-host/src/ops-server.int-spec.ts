import { startOpsServer, type OpsServer } from './ops-server';

describe('startOpsServer', () => {
  let ops: OpsServer;
  const status = async (method: string, path = '/health') =>
    (await fetch(`http://${ops.address}${path}`, { method })).status;

  beforeAll(async () => {
    ops = await startOpsServer('127.0.0.1:0');
  });
  afterAll(() => ops.close());

  it('binds the port it was given (0 = any) and reports it', () => {
    expect(ops.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(ops.address).not.toBe('127.0.0.1:0');
  });

  it('answers 503 while starting, 200 while serving and 503 once shutdown began', async () => {
    expect(await status('GET')).toBe(503);
    ops.markServing();
    expect(await status('GET')).toBe(200);
    expect(await status('HEAD')).toBe(200);
    const res = await fetch(`http://${ops.address}/health`);
    expect(await res.text()).toBe('');
    ops.beginShutdown();
    ops.markServing();
    expect(await status('GET')).toBe(503);
  });

  it('knows only GET and HEAD /health', async () => {
    expect(await status('POST')).toBe(405);
    expect(await status('GET', '/metrics')).toBe(404);
    expect(await status('GET', '/health?x=1')).toBe(503);
  });
});
