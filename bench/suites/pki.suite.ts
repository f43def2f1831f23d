import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@coffer/testing';
import { httpJson } from '../../test/support/launch/bootstrap';
import { mustWrite } from '../lib/coffer';
import { runRetryingClients } from '../lib/retrying-clients';
import { runScenario, type BenchSuite, type CofferTarget, type Scenario } from '../lib/suite';

export const PKI_BENCH_MOUNT = 'bench-pki';

/** A client CSR (EC P-256) made by openssl, as the sign scenario sends it. */
function clientCsr(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pki-'));
  const out = join(dir, 'client.csr');
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'client.key'),
      '-subj',
      '/CN=client.bench.test',
      '-out',
      out,
    ],
    { stdio: 'pipe' },
  );
  return readFileSync(out, 'utf8');
}

/** Its own mount with an EC P-256 root and the roles of the scenarios (no_store: issuance alone). */
export async function preparePki(target: CofferTarget): Promise<string> {
  const token = target.rootToken;
  await mustWrite(target, `sys/mounts/${PKI_BENCH_MOUNT}`, {
    type: 'pki',
    config: { max_lease_ttl: '87600h' },
  });
  await waitFor(
    async () => {
      const res = await httpJson('GET', `${target.baseUrl}/v1/${PKI_BENCH_MOUNT}/cert/ca`, { token });
      return res.status === 404 || res.status === 200;
    },
    { timeoutMs: 30_000, message: 'pki service ready' },
  );
  await mustWrite(target, `${PKI_BENCH_MOUNT}/root/generate/internal`, {
    common_name: 'bench root',
    key_type: 'ec',
    ttl: '8760h',
  });
  const role = { allowed_domains: 'bench.test', allow_subdomains: true, max_ttl: '24h', no_store: true };
  await mustWrite(target, `${PKI_BENCH_MOUNT}/roles/ec`, { ...role, key_type: 'ec', key_bits: 256 });
  await mustWrite(target, `${PKI_BENCH_MOUNT}/roles/rsa`, { ...role, key_type: 'rsa', key_bits: 2048 });
  await mustWrite(target, 'secret/data/bench/pki-probe', { data: { value: 'probe' } });
  await mustWrite(target, `${PKI_BENCH_MOUNT}/roles/client`, {
    ...role,
    key_type: 'any',
    server_flag: false,
  });
  return clientCsr();
}

/** The fixed rate of the KV probe that shows whether reads keep their p99 under RSA load. */
const KV_PROBE_RATE = 2000;
const RATED = `KV v2 read at ${KV_PROBE_RATE.toLocaleString('en')}/s`;
const RATED_UNDER_LOAD = `${RATED} under RSA issue load`;

/** PKI issue with EC P-256 and RSA-2048 keys, and signing a client CSR. */
export const pkiSuite: BenchSuite = {
  name: 'pki',
  targets: [
    { scenario: 'PKI issue EC P-256', minRps: 500, label: 'PKI issue (EC P-256) ≥ 500/s' },
    { scenario: 'PKI sign CSR', minRps: 1000, label: 'PKI sign of a client CSR ≥ 1,000/s' },
    {
      scenario: RATED_UNDER_LOAD,
      minRps: KV_PROBE_RATE * 0.95,
      maxP99: 20,
      label: `KV v2 reads at ${KV_PROBE_RATE.toLocaleString('en')}/s keep p99 < 20 ms while 20 RSA issues run`,
    },
  ],
  async run(target, shape, log) {
    const csr = await preparePki(target);
    const issue = (n: number) => JSON.stringify({ common_name: `host-${n % 1000}.bench.test`, ttl: '1h' });
    const rows = [
      await runScenario(target, shape, log, 'PKI issue EC P-256', {
        method: 'POST',
        body: issue(0),
        path: () => `/v1/${PKI_BENCH_MOUNT}/issue/ec`,
      }),
      await runScenario(target, shape, log, 'PKI sign CSR', {
        method: 'POST',
        body: JSON.stringify({ csr, ttl: '1h' }),
        path: () => `/v1/${PKI_BENCH_MOUNT}/sign/client`,
      }),
      // the p99 to keep, before any RSA key generation: none of it bleeds into this row
      await runScenario(target, shape, log, RATED, {
        overallRate: KV_PROBE_RATE,
        path: () => '/v1/secret/data/bench/pki-probe',
      }),
      await rsaIssue(target, shape, log),
    ];
    await rsaQueueDrained(target);
    const underLoad = [
      // KV reads through the same gateway while 20 clients keep asking for RSA certificates:
      // admission control keeps key generation from taking every core. As fast as possible (the
      // throughput left), and at a fixed rate next to the same rate without RSA load (the p99 kept).
      await kvReadUnderRsaLoad(target, shape, log, 'KV v2 read under RSA issue load'),
      await kvReadUnderRsaLoad(target, shape, log, RATED_UNDER_LOAD, KV_PROBE_RATE),
    ];
    // the next suite starts with no RSA requests of this one left waiting
    await rsaQueueDrained(target);
    return [...rows, ...underLoad];
  },
};

/** RSA client loop of the scenarios: each client retries a refusal after Retry-After / 1 s. */
const rsaClients = (target: CofferTarget, clients: number, durationSeconds: number) =>
  runRetryingClients({
    origin: target.baseUrl,
    clients,
    durationSeconds,
    method: 'POST',
    headers: { 'x-vault-token': target.rootToken },
    body: JSON.stringify({ common_name: 'bg.bench.test', ttl: '1h' }),
    path: `/v1/${PKI_BENCH_MOUNT}/issue/rsa`,
  });

/**
 * As many clients as the other rows have connections, asking for RSA certificates: bounded by key
 * generation; refusals (429) beyond what the replica serves within its wait bound are counted as
 * non-2xx, and the refused client comes back after 1 s like a real one.
 */
async function rsaIssue(
  target: CofferTarget,
  shape: Parameters<BenchSuite['run']>[1],
  log: (line: string) => void,
): Promise<Scenario> {
  const name = 'PKI issue RSA-2048';
  log(`  ${name}...`);
  const summary = await rsaClients(target, shape.connections, shape.durationSeconds);
  if (summary.count === 0) throw new Error(`${name}: no request succeeded (${summary.non2xx} non-2xx)`);
  log(
    `  ${name}: ${summary.rps.toFixed(1)} req/s, p99 ${Math.round(summary.p99)} ms, ${summary.non2xx} refused`,
  );
  return { name, summary };
}

/**
 * Waits until an RSA issue is admitted and answered: the key generations the RSA scenario left
 * queued are done. Without it the next scenario's 20 RSA connections met a full queue and spun on
 * 429s (7,597 refusals in 10 s, 0 keys), a load of refusals instead of 20 RSA issues.
 */
async function rsaQueueDrained(target: CofferTarget): Promise<void> {
  await waitFor(
    async () => {
      const res = await httpJson('POST', `${target.baseUrl}/v1/${PKI_BENCH_MOUNT}/issue/rsa`, {
        token: target.rootToken,
        body: { common_name: 'drain.bench.test', ttl: '1h' },
      });
      return res.status === 200 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, message: 'RSA key generation queue drained' },
  );
}

async function kvReadUnderRsaLoad(
  target: CofferTarget,
  shape: Parameters<BenchSuite['run']>[1],
  log: (line: string) => void,
  name: string,
  overallRate?: number,
) {
  const rsa = rsaClients(target, 20, shape.durationSeconds + 1);
  const reads = await runScenario(target, shape, log, name, {
    ...(overallRate !== undefined ? { overallRate } : {}),
    path: () => '/v1/secret/data/bench/pki-probe',
  });
  const background = await rsa;
  log(
    `  (RSA background: ${background.rps.toFixed(1)} req/s, p99 ${Math.round(background.p99)} ms, ${background.non2xx} refused, ${background.errors} errors)`,
  );
  return reads;
}
