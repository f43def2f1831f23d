import { coreWrapResponse, wrappingContracts } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { SealService } from '../seal/seal.service';
import { CoreSysHarness } from '../test-support/core-sys-harness';

jest.setTimeout(120_000);

const INVALID = 'wrapping token is not valid or does not exist';

/**
 * Two core-sys replicas on one Postgres (NATS spreads the calls over both): of two unwraps of the
 * same token racing, exactly one gets the response and the other Vault's invalid-token text.
 */
describe('double unwrap across two replicas', () => {
  let h: CoreSysHarness;

  beforeAll(async () => {
    h = await CoreSysHarness.start('wrapping_race', 2);
    await h.replica(0).app.get(SealService).devBootstrap({});
    await waitFor(() => h.replica(1).app.get(SealService).isUnsealed(), { message: 'follower unsealed' });
  }, 60_000);
  afterAll(() => h?.close(), 30_000);

  const unwrap = (token: string) =>
    h.sys(wrappingContracts.unwrap, {
      operation: 'update',
      path: 'wrapping/unwrap',
      body: {},
      headers: { 'x-vault-token': token },
    });

  it('exactly one of two concurrent unwraps wins, 50 runs', async () => {
    for (let run = 0; run < 50; run++) {
      const response = { request_id: `r-${run}`, data: { secret: `s-${run}` } };
      const info = await h.client.request(coreWrapResponse, {
        response,
        ttl: 60,
        creationPath: 'secret/data/x',
      });
      const results = await Promise.allSettled([unwrap(info.token), unwrap(info.token)]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won.map((w) => w.body)).toEqual([response]);
      expect(lost).toEqual([expect.objectContaining({ code: 'invalid_request', message: INVALID })]);
    }
  });
});
