import { coreBarrierKeyring, DomainError, invalidation } from '@coffer/contracts';
import { InProcessTransport, type Transport } from '@coffer/transport';
import { waitFor } from '@coffer/testing';
import { Barrier } from './barrier';
import { createKeyring, rotateKeyring } from './keyring';
import { sealKeyringForRecipient, verifyKeyringRequestMac } from './keyring-transport';
import { KeyringClient } from './keyring-client';
import type { KeyringData } from './barrier-types';

const quiet = { error: () => undefined, warn: () => undefined };
const newTransport = (): Transport => new InProcessTransport({ logger: quiet });

const CLUSTER_SECRET = 'test-cluster-secret';
const aad = Buffer.from('aad');

/** Plays core-sys: serves the keyring contract while unsealed. */
function fakeCore(transport: Transport) {
  const state: {
    keyring: KeyringData | undefined;
    gate: Promise<void> | undefined;
    requests: number;
    stop: () => void;
  } = { keyring: undefined, gate: undefined, requests: 0, stop: () => undefined };
  const subscription = transport.serve(coreBarrierKeyring, 'core-sys', async (req) => {
    state.requests += 1;
    if (!verifyKeyringRequestMac(CLUSTER_SECRET, req.service, req.publicKey, req.nonce, req.mac)) {
      throw new DomainError('permission_denied', 'permission denied');
    }
    const keyring = state.keyring; // captured before waiting, like a response already in flight
    if (state.gate) await state.gate;
    if (!keyring) throw new DomainError('sealed', 'Vault is sealed');
    return sealKeyringForRecipient(keyring, req.publicKey);
  });
  state.stop = () => subscription.unsubscribe();
  return state;
}

describe('KeyringClient', () => {
  let client: KeyringClient | undefined;
  afterEach(() => client?.stop());

  it('stays sealed without failing when core-sys is not running', async () => {
    client = new KeyringClient({
      transport: newTransport(),
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
    });
    await client.start();
    expect(client.barrier.sealed).toBe(true);
  });

  it('follows seal and unseal broadcasts', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    client = new KeyringClient({
      transport,
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
      requestTimeoutMs: 200,
    });
    await client.start();
    expect(client.barrier.sealed).toBe(true);

    const coreBarrier = new Barrier();
    core.keyring = createKeyring();
    coreBarrier.load(core.keyring);
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    await waitFor(() => !client!.barrier.sealed, { timeoutMs: 2000 });
    const ct = coreBarrier.encrypt(Buffer.from('shared'), aad);
    expect(client.barrier.decrypt(ct, aad).toString()).toBe('shared');

    core.keyring = undefined;
    core.gate = new Promise(() => undefined); // core-sys never answers the next request
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    // wiped on the broadcast itself, not when (if ever) the new answer comes
    await waitFor(() => core.requests === 3 && client!.barrier.sealed, { timeoutMs: 2000 });
  });

  it('ignores other invalidation kinds', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    core.keyring = createKeyring();
    client = new KeyringClient({ transport, clusterSecret: CLUSTER_SECRET, service: 'kv' });
    await client.start();
    expect(client.barrier.sealed).toBe(false);
    let delivered = false;
    transport.subscribe(invalidation, () => {
      delivered = true; // subscribed after the client, so delivered after it
    });
    await transport.publish(invalidation, { kind: 'policy', keys: ['default'] });
    await waitFor(() => delivered);
    expect(client.barrier.sealed).toBe(false);
    expect(core.requests).toBe(1);
  });

  it('does not reinstall a keyring fetched before a seal broadcast', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    core.keyring = createKeyring();
    let release!: () => void;
    core.gate = new Promise((resolve) => (release = resolve));
    client = new KeyringClient({ transport, clusterSecret: CLUSTER_SECRET, service: 'kv' });
    const starting = client.start();
    await waitFor(() => core.requests === 1);
    core.keyring = undefined; // core seals while the first answer is still in flight
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    release();
    await starting;
    await waitFor(() => core.requests === 2);
    expect(client.barrier.sealed).toBe(true);
  });

  it('a refresh overtaken by an unseal broadcast answers the newer fetch (unsealed)', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    client = new KeyringClient({ transport, clusterSecret: CLUSTER_SECRET, service: 'kv' });
    await client.start();
    expect(client.barrier.sealed).toBe(true);
    core.keyring = createKeyring();
    let release!: () => void;
    core.gate = new Promise((resolve) => (release = resolve));
    const asked = client.refresh();
    await waitFor(() => core.requests === 2);
    // core-sys unseals and says so while that answer is in flight (dev start-up's order)
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    await waitFor(() => core.requests === 3);
    release();
    expect(await asked).toBe(true);
    expect(client.barrier.sealed).toBe(false);
  });

  it('fails to start with a wrong cluster secret', async () => {
    const transport = newTransport();
    fakeCore(transport).keyring = createKeyring();
    client = new KeyringClient({ transport, clusterSecret: 'wrong', service: 'kv' });
    await expect(client.start()).rejects.toMatchObject({ code: 'permission_denied' });
    expect(client.barrier.sealed).toBe(true);
  });

  it('picks up rotations and missed broadcasts by refreshing periodically', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    core.keyring = createKeyring();
    client = new KeyringClient({
      transport,
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
      refreshIntervalMs: 10,
    });
    await client.start();
    core.keyring = rotateKeyring(core.keyring);
    await waitFor(() => client!.barrier.keyStatus().term === 2, { timeoutMs: 2000 });
    core.keyring = undefined;
    await waitFor(() => client!.barrier.sealed, { timeoutMs: 2000 });
  });

  it('reports background failures without throwing', async () => {
    const transport = newTransport();
    const core = fakeCore(transport);
    const errors: unknown[] = [];
    client = new KeyringClient({
      transport,
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
      onError: (e) => errors.push(e),
    });
    await client.start();
    core.stop();
    transport.serve(coreBarrierKeyring, 'core-sys', async () => {
      throw new DomainError('internal', 'internal error');
    });
    core.keyring = createKeyring();
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    await waitFor(() => errors.length === 1);
    expect(errors[0]).toMatchObject({ code: 'internal' });
    expect(client.barrier.sealed).toBe(true);
  });
});
