import { rekeyContracts, sysContracts } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness, type InitResult } from '../test-support/core-sys-harness';

const r = rekeyContracts;

describe('rekey and root generation against Postgres + NATS, across replicas and a restart', () => {
  let h: CoreSysHarness;
  let init: InitResult;

  beforeAll(async () => {
    h = await CoreSysHarness.start('rekey', 1);
    init = await h.initialise(3, 2);
    await h.unseal(init.keys.slice(0, 2));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const raw = async (contract: (typeof r)[keyof typeof r], path: string, body = {}) =>
    ((await h.sys(contract, { operation: 'update', path, body })) as { body?: unknown }).body as Record<
      string,
      unknown
    >;

  it('rekeys 2-of-3 to 3-of-5; the root key in storage changes, the keyring does not', async () => {
    const started = await raw(r.rekeyInit, 'rekey/init', { secret_shares: 5, secret_threshold: 3 });
    expect(started).toMatchObject({ started: true, t: 3, n: 5, required: 2 });
    const nonce = started['nonce'] as string;
    expect(await raw(r.rekeyUpdate, 'rekey/update', { key: init.keys[0], nonce })).toMatchObject({
      progress: 1,
    });
    const done = await raw(r.rekeyUpdate, 'rekey/update', { key: init.keys_base64[2], nonce });
    expect(done).toMatchObject({ complete: true, nonce });
    const keys = done['keys'] as string[];
    expect(keys).toHaveLength(5);
    const status = (await h.sys(sysContracts.sealStatus, { operation: 'read', path: 'seal-status' })).body;
    expect(status).toMatchObject({ sealed: false, t: 3, n: 5 });

    // a fresh replica becomes the leader after the first stops: only the new shares unseal it
    await h.addReplica();
    await h.sys(sysContracts.seal, { operation: 'update', path: 'seal' });
    await waitFor(() => h.replica(1).barrier.sealed, { timeoutMs: 20_000 });
    await h.stopReplica(0);
    await waitFor(() => h.sys(sysContracts.sealStatus, { operation: 'read', path: 'seal-status' }), {
      timeoutMs: 20_000,
    });
    const old = await h.failure(h.unseal(init.keys));
    expect(old).toMatchObject({ code: 'invalid_request', message: 'Unseal failed, invalid key' });
    const opened = await h.unseal([keys[4]!, keys[1]!, keys[2]!]);
    expect(opened['sealed']).toBe(false);
  }, 60_000);

  it('generates a root token from the new shares', async () => {
    const started = await raw(r.generateRootInit, 'generate-root/attempt');
    expect(started).toMatchObject({ started: true, required: 3 });
    expect(typeof started['otp']).toBe('string');
  });
});
