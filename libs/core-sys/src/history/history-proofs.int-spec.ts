import { historyContracts as hc, sysContracts } from '@coffer/contracts';
import {
  ed25519PublicKey,
  EventRegistry,
  EventStore,
  verifyConsistencyProof,
  verifyInclusionProof,
  verifyTreeHead,
  type ConsistencyProof,
  type InclusionProof,
  type SignedTreeHead,
} from '@coffer/event-store';
import { CoreSysHarness } from '../test-support/core-sys-harness';
import { CORE_SYS_SCHEMA } from '../migrations';

/**
 * sys/history proofs against real Postgres + NATS: every event of the core_sys log is proven in
 * the signed tree and every older tree is a prefix of the newer (client-side verifier, no trust
 * in the server), the answers survive a restart, and a changed byte in the stored log fails both
 * the server's verifyChain and the client.
 */
describe('history proofs (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let unsealKeys: string[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('history-proofs', 2);
    const init = await h.initialise(1, 1);
    unsealKeys = init.keys;
    await h.unseal(init.keys);
    // enough events for stored subtrees (16 leaves and up) and a ragged right edge
    for (let i = 0; i < 45; i++) {
      await h.sys(sysContracts.policyWrite, {
        operation: 'update',
        path: `policies/acl/p${i}`,
        params: { name: `p${i}` },
        body: { policy: `path "p${i}/*" { capabilities = ["read"] }` },
      });
    }
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const read = <C extends (typeof hc)[keyof typeof hc]>(contract: C, path: string, query = {}) =>
    h.sys(contract, { operation: 'read', path, query });
  const publicKey = async () =>
    ed25519PublicKey(((await read(hc.key, 'history/key')).data as { public_key: string }).public_key);
  const head = async (query: Record<string, string> = {}) =>
    (await read(hc.treeHead, 'history/tree-head', query)).data as SignedTreeHead;
  const proof = async (wal: number, query: Record<string, string> = {}) =>
    (await read(hc.proof, 'history/proof', { wal: String(wal), ...query })).data as InclusionProof;
  const consistency = async (from: number, to?: number) =>
    (
      await read(hc.consistency, 'history/consistency', {
        from: String(from),
        ...(to ? { to: String(to) } : {}),
      })
    ).data as ConsistencyProof;

  it('signs tree heads with one Ed25519 key, generated once and shared by the replicas', async () => {
    const key = (await read(hc.key, 'history/key')).data;
    expect(key).toEqual({
      algorithm: 'ed25519',
      public_key: expect.stringContaining('BEGIN PUBLIC KEY'),
      key_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: expect.any(String),
    });
    for (let i = 0; i < 4; i++) expect((await read(hc.key, 'history/key')).data).toEqual(key);
    const sth = await head();
    expect(sth.log).toBe(CORE_SYS_SCHEMA);
    expect(sth.tree_size).toBeGreaterThan(45);
    expect(verifyTreeHead(sth, await publicKey())).toEqual({ ok: true });
    expect(verifyTreeHead({ ...sth, tree_size: sth.tree_size - 1 }, await publicKey()).ok).toBe(false);
  });

  it('proves every event of the log in the current tree and in older ones', async () => {
    const key = await publicKey();
    const { tree_size: size } = await head();
    for (let wal = 1; wal <= size; wal++) {
      const p = await proof(wal, { tree_size: String(size) });
      expect(p).toMatchObject({ log: CORE_SYS_SCHEMA, leaf_index: wal - 1, tree_size: size });
      expect(verifyInclusionProof(p, key)).toEqual({ ok: true });
    }
    const older = await proof(3, { tree_size: '17' });
    expect(verifyInclusionProof(older, key)).toEqual({ ok: true });
    expect(older.root_hash).toBe((await head({ tree_size: '17' })).root_hash);
    // a proof moved to another leaf does not verify
    expect(verifyInclusionProof({ ...older, leaf_index: 4 }, key).ok).toBe(false);
  });

  it('proves every older tree is a prefix of the current one', async () => {
    const key = await publicKey();
    const { tree_size: size } = await head();
    for (let from = 0; from <= size; from++) {
      const trusted = await head({ tree_size: String(from) });
      const p = await consistency(from);
      expect(p.second).toBe(size);
      expect(verifyConsistencyProof(p, trusted, key)).toEqual({ ok: true });
    }
    const trusted = await head({ tree_size: '20' });
    const forged = { tree_size: 20, root_hash: 'ab'.repeat(32) };
    expect(verifyConsistencyProof(await consistency(20), forged, key).ok).toBe(false);
    expect(verifyConsistencyProof(await consistency(20, 33), trusted, key)).toEqual({ ok: true });
  });

  it('answers the same roots and paths after a restart, from the stored index', async () => {
    const { tree_size: size, root_hash: root } = await head();
    const before = await proof(7, { tree_size: String(size) });
    const rows = await h.database.db
      .withSchema(CORE_SYS_SCHEMA)
      .selectFrom('history_merkle_nodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBeGreaterThan(0);
    await h.stopReplica(0);
    await h.stopReplica(1);
    await h.addReplica();
    await h.unseal(unsealKeys);
    const after = await proof(7, { tree_size: String(size) });
    expect(after.audit_path).toEqual(before.audit_path);
    expect(after.root_hash).toBe(root);
    expect((await head({ tree_size: String(size) })).root_hash).toBe(root);
  });

  it('refuses unknown logs and events outside the tree', async () => {
    const { tree_size: size } = await head();
    expect(await h.failure(proof(size + 1))).toMatchObject({ code: 'invalid_request' });
    expect(await h.failure(proof(0))).toMatchObject({ code: 'invalid_request' });
    expect(await h.failure(read(hc.proof, 'history/proof'))).toMatchObject({
      code: 'invalid_request',
      message: 'missing wal',
    });
    expect(await h.failure(head({ log: 'nope' }))).toMatchObject({ message: 'unknown log "nope"' });
    expect(await h.failure(consistency(size + 1))).toMatchObject({ code: 'invalid_request' });
  });

  it('detects a changed byte of a stored event: the server chain check and the client verifier both fail', async () => {
    const key = await publicKey();
    const { tree_size: size } = await head();
    const wal = 12;
    const db = h.database.db.withSchema(CORE_SYS_SCHEMA);
    const row = await db
      .selectFrom('event_log')
      .select('payload')
      .where('wal', '=', wal)
      .executeTakeFirstOrThrow();
    const tampered = Buffer.from(row.payload as Buffer);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 0x01, tampered.length - 1);
    await db.updateTable('event_log').set({ payload: tampered }).where('wal', '=', wal).execute();

    const store = new EventStore({
      db: h.database.db,
      schema: CORE_SYS_SCHEMA,
      cipher: h.replica(h.replicas.length - 1).barrier,
      registry: new EventRegistry([]),
    });
    expect(await store.verifyChain()).toEqual({ ok: false, checked: wal - 1, wal, reason: 'hash_mismatch' });

    const p = await proof(wal, { tree_size: String(size) });
    expect(verifyInclusionProof(p, key)).toEqual({
      ok: false,
      reason: `event ${wal}: its stored bytes do not hash to its chain hash`,
    });
    // the neighbours still prove: the tree itself was built before the change
    expect(verifyInclusionProof(await proof(wal + 1, { tree_size: String(size) }), key)).toEqual({
      ok: true,
    });
  });
});
