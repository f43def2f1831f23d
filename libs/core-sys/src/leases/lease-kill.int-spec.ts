import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { leaseContracts, sysContracts } from '@coffer/contracts';
import { freePort, ManagedProcess, natsUrl, waitFor } from '@coffer/testing';
import {
  CLUSTER_SECRET,
  CoreSysHarness,
  ROOT_CALLER,
  type InitResult,
} from '../test-support/core-sys-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';

// Two cold starts of the core-sys app as a child process, and leases that expire in real time.
jest.setTimeout(180_000);

const TTL_SECONDS = 25;
const WORKERS = 8;
/** acknowledged registrations before the kill */
const ACKED_BEFORE_KILL = 30;
/** how late after its expiry (or the restart, if later) a revocation may arrive */
const LATE_MS = 8_000;

const q = (value: string): string => JSON.stringify(value);

describe('kill -9 of core-sys during a burst of lease registrations', () => {
  let h: CoreSysHarness;
  let engine: LeaseTestEngine;
  let dir: string;
  let configPath: string;
  let init: InitResult;
  const processes: ManagedProcess[] = [];

  /** core-sys in cluster mode, alone, on the harness's database and subject prefix; resolves once it answers. */
  const startCoreSys = async (n: number): Promise<ManagedProcess> => {
    const proc = ManagedProcess.launch({
      name: `core-sys-${n}`,
      entry: 'apps/core-sys/src/main.ts',
      args: ['-config', configPath],
      env: { COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${await freePort()}` },
    });
    processes.push(proc);
    await waitFor(
      async () => {
        if (!proc.running) throw new Error(`core-sys exited during start-up\n${proc.output()}`);
        await h.sys(sysContracts.sealStatus, { operation: 'read', path: 'seal-status' });
        return true;
      },
      { timeoutMs: 90_000, intervalMs: 200, message: `core-sys-${n} answers` },
    );
    return proc;
  };

  const lookup = async (leaseId: string) =>
    (
      await h.sys(leaseContracts.lookup, {
        operation: 'update',
        path: 'leases/lookup',
        body: { lease_id: leaseId },
      })
    ).data as Record<string, unknown>;

  beforeAll(async () => {
    h = await CoreSysHarness.start('lease_kill', 0);
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-lease-kill-'));
    configPath = path.join(dir, 'core-sys.hcl');
    const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
    await writeFile(
      configPath,
      `cluster_name   = "coffer-lease-kill"
cluster_secret = ${q(CLUSTER_SECRET)}

controller {
  graceful_shutdown_wait_duration = "0s"
}

listener "tcp" {
  purpose     = "api"
  address     = "127.0.0.1:${apiPort}"
  tls_disable = true
}

listener "tcp" {
  purpose     = "ops"
  address     = "127.0.0.1:${opsPort}"
  tls_disable = true
}

storage "postgresql" {
  connection_url  = ${q(h.database.url)}
  max_connections = 5
}

nats {
  url            = ${q(natsUrl())}
  subject_prefix = ${q(h.prefix)}
}
`,
      { mode: 0o600 },
    );
    engine = new LeaseTestEngine(h.client);
    await startCoreSys(1);
    init = await h.initialise(1, 1);
    await h.unseal(init.keys);
  }, 120_000);

  afterAll(async () => {
    engine?.stop();
    for (const proc of processes) await proc.stop().catch(() => undefined);
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('loses no acknowledged lease, and the restarted manager revokes each once, on time', async () => {
    const victim = processes[0];
    if (!victim) throw new Error('core-sys not started');
    const acked: string[] = [];
    let sent = 0;
    let failed = 0;
    let killed = false;
    const worker = async (w: number) => {
      while (!killed) {
        const n = sent++;
        try {
          const lease = await registerTestLease(h.client, ROOT_CALLER, `dyn/creds/w${w}`, {
            ttl: TTL_SECONDS,
            internal: { n },
          });
          acked.push(lease.lease_id);
        } catch {
          failed += 1; // in flight when the process died: not acknowledged, may or may not exist
        }
      }
    };
    const killer = async () => {
      await waitFor(() => acked.length >= ACKED_BEFORE_KILL, { timeoutMs: 30_000, message: 'burst' });
      victim.kill('SIGKILL');
      killed = true;
      const exit = await victim.exited;
      expect(exit.signal).toBe('SIGKILL');
    };
    await Promise.all([killer(), ...Array.from({ length: WORKERS }, (_, w) => worker(w))]);
    const ackedAtKill = [...acked];
    expect(ackedAtKill.length).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);
    expect(new Set(ackedAtKill).size).toBe(ackedAtKill.length);

    await startCoreSys(2);
    expect((await h.unseal(init.keys)).sealed).toBe(false);
    const unsealedAt = Date.now();

    // every acknowledged lease survived the kill, with the expiry it was given
    const expiries = new Map<string, number>();
    for (const id of ackedAtKill) {
      const found = await lookup(id);
      expect(found).toMatchObject({ id, renewable: false });
      const expire = Date.parse(String(found['expire_time']));
      expect(Number.isFinite(expire)).toBe(true);
      expiries.set(id, expire);
    }

    await waitFor(() => ackedAtKill.every((id) => engine.revoked.some((r) => r.lease_id === id)), {
      timeoutMs: (TTL_SECONDS + 30) * 1000,
      intervalMs: 200,
      message: 'every acknowledged lease revoked by the new manager',
    });
    for (const id of ackedAtKill) {
      const calls = engine.revoked.flatMap((r, i) => (r.lease_id === id ? [engine.revokedAt[i] ?? 0] : []));
      expect(calls).toHaveLength(1);
      const at = calls[0] ?? 0;
      const expiry = expiries.get(id) ?? 0;
      // never early; late only by the manager's pass interval and the restart
      expect(at).toBeGreaterThanOrEqual(expiry - 50);
      expect(at).toBeLessThanOrEqual(Math.max(expiry, unsealedAt) + LATE_MS);
      await expect(lookup(id)).rejects.toThrow();
    }
    // registrations in flight at the kill may have committed: those expire too, and nothing is revoked twice
    const all = engine.revokedIds();
    expect(new Set(all).size).toBe(all.length);
    process.stdout.write(
      `lease kill: ${ackedAtKill.length} acknowledged, ${failed} failed at the kill, ${all.length} revoked\n`,
    );
  });
});
