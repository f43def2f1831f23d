import { call, mountEntry, startHarness, type Harness } from './harness';

/** Vault's router refuses every request to a tainted mount (one being unmounted). */
describe('gateway: tainted mounts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.core.mounts.push({ ...mountEntry('going/', 'testeng'), tainted: true });
  });
  afterAll(async () => {
    await h.close();
  });

  it("answers 404 with Vault's text for a tainted mount, and serves the others", async () => {
    const r = await call(h, 'GET', '/v1/going/echo/x');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: ['no handler for route "going/echo/x". route entry is tainted.'] });
    expect((await call(h, 'GET', '/v1/test/echo/x')).status).toBe(200);
  });
});
