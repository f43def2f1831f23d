import {
  coreBarrierKeyring,
  DomainError,
  invalidation,
  type Broadcast,
  type Contract,
} from '@coffer/contracts';
import type { Subscription, Transport } from '@coffer/transport';
import { waitFor } from '@coffer/testing';
import { Barrier } from './barrier';
import { createKeyring, rotateKeyring } from './keyring';
import { sealKeyringForRecipient, verifyKeyringRequestMac } from './keyring-transport';
import { KeyringClient } from './keyring-client';
import type { KeyringData } from './types';

/** Minimal in-memory transport: contracts validated both ways, broadcasts to every subscriber. */
class MemoryTransport implements Transport {
  private readonly handlers = new Map<
    string,
    (payload: any, headers: Record<string, string>) => Promise<any>
  >();
  private readonly subscribers = new Map<string, Set<(payload: any) => void | Promise<void>>>();

  async request(contract: Contract, payload: any): Promise<any> {
    const handler = this.handlers.get(contract.subject);
    if (!handler)
      throw new DomainError('service_unavailable', 'no running replica of the "core-sys" service');
    return contract.response.parse(await handler(contract.request.parse(payload), {}));
  }
  serve(
    contract: Contract,
    _queue: string,
    handler: (payload: any, headers: Record<string, string>) => Promise<any>,
  ): Subscription {
    this.handlers.set(contract.subject, handler);
    return { unsubscribe: () => this.handlers.delete(contract.subject) };
  }
  async publish(broadcast: Broadcast, payload: any): Promise<void> {
    const parsed = broadcast.payload.parse(payload);
    for (const handler of this.subscribers.get(broadcast.subject) ?? []) await handler(parsed);
  }
  subscribe(broadcast: Broadcast, handler: (payload: any) => void | Promise<void>): Subscription {
    const set = this.subscribers.get(broadcast.subject) ?? new Set();
    set.add(handler);
    this.subscribers.set(broadcast.subject, set);
    return { unsubscribe: () => set.delete(handler) };
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

const CLUSTER_SECRET = 'test-cluster-secret';
const aad = Buffer.from('aad');

/** Plays core-sys: serves the keyring contract while unsealed. */
function fakeCore(transport: Transport) {
  const state: { keyring: KeyringData | undefined; gate: Promise<void> | undefined; requests: number } = {
    keyring: undefined,
    gate: undefined,
    requests: 0,
  };
  transport.serve(coreBarrierKeyring, 'core-sys', async (req) => {
    state.requests += 1;
    if (!verifyKeyringRequestMac(CLUSTER_SECRET, req.service, req.publicKey, req.nonce, req.mac)) {
      throw new DomainError('permission_denied', 'permission denied');
    }
    const keyring = state.keyring; // captured before waiting, like a response already in flight
    if (state.gate) await state.gate;
    if (!keyring) throw new DomainError('sealed', 'Vault is sealed');
    return sealKeyringForRecipient(keyring, req.publicKey);
  });
  return state;
}

describe('KeyringClient', () => {
  let client: KeyringClient | undefined;
  afterEach(() => client?.stop());

  it('stays sealed without failing when core-sys is not running', async () => {
    client = new KeyringClient({
      transport: new MemoryTransport(),
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
    });
    await client.start();
    expect(client.barrier.sealed).toBe(true);
  });

  it('follows seal and unseal broadcasts', async () => {
    const transport = new MemoryTransport();
    const core = fakeCore(transport);
    client = new KeyringClient({ transport, clusterSecret: CLUSTER_SECRET, service: 'kv' });
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
    await transport.publish(invalidation, { kind: 'seal', keys: [] });
    expect(client.barrier.sealed).toBe(true); // wiped at once, before asking again
    await waitFor(() => core.requests >= 3, { timeoutMs: 2000 });
    expect(client.barrier.sealed).toBe(true);
  });

  it('ignores other invalidation kinds', async () => {
    const transport = new MemoryTransport();
    const core = fakeCore(transport);
    core.keyring = createKeyring();
    client = new KeyringClient({ transport, clusterSecret: CLUSTER_SECRET, service: 'kv' });
    await client.start();
    expect(client.barrier.sealed).toBe(false);
    await transport.publish(invalidation, { kind: 'policy', keys: ['default'] });
    expect(client.barrier.sealed).toBe(false);
    expect(core.requests).toBe(1);
  });

  it('does not reinstall a keyring fetched before a seal broadcast', async () => {
    const transport = new MemoryTransport();
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

  it('fails to start with a wrong cluster secret', async () => {
    const transport = new MemoryTransport();
    fakeCore(transport).keyring = createKeyring();
    client = new KeyringClient({ transport, clusterSecret: 'wrong', service: 'kv' });
    await expect(client.start()).rejects.toMatchObject({ code: 'permission_denied' });
    expect(client.barrier.sealed).toBe(true);
  });

  it('picks up rotations and missed broadcasts by refreshing periodically', async () => {
    const transport = new MemoryTransport();
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
    const transport = new MemoryTransport();
    const core = fakeCore(transport);
    const errors: unknown[] = [];
    client = new KeyringClient({
      transport,
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
      onError: (e) => errors.push(e),
    });
    await client.start();
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
