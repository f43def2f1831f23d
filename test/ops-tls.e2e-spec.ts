import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ManagedProcess,
  createTestDatabase,
  freePort,
  makeTestCertificates,
  makeTestClientCertificate,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  type TestCertificates,
  type TestDatabase,
} from '@coffer/testing';
import { appEntry } from './support/launch/cluster-launcher';
import { echoLines } from './support/logs';

/**
 * TLS listeners as Vault configures them (tls_cert_file, tls_key_file, tls_min_version,
 * tls_client_ca_file, tls_require_and_verify_client_cert), on the gateway's api and ops listeners
 * and a service's ops listener, checked with real TLS clients: openssl s_client and Node's https.
 */
jest.setTimeout(120_000);

interface Answer {
  status?: number;
  body?: string;
  error?: string;
}

describe('TLS listeners', () => {
  let database: TestDatabase;
  let dir: string;
  let certs: TestCertificates;
  let client: { cert: string; key: string };
  let api: string;
  let gatewayOps: string;
  let coreOps: string;
  const procs: ManagedProcess[] = [];

  const get = (url: string, options: { cert?: string; key?: string; ca?: string } = {}) =>
    new Promise<Answer>((resolve) => {
      const req = request(url, { ca: certs.ca, ...options, timeout: 10_000 }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      req.end();
    });
  const sClient = (address: string, ...args: string[]) =>
    spawnSync(
      'openssl',
      ['s_client', '-connect', address, '-CAfile', certs.caFile, '-verify_return_error', '-brief', ...args],
      { input: '', encoding: 'utf8', timeout: 20_000 },
    );
  const hostPort = (url: string) => url.replace(/^https:\/\//, '');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-ops-tls-'));
    certs = makeTestCertificates(dir);
    client = makeTestClientCertificate(dir, 'probe');
    database = await createTestDatabase('opstls', { poolSize: 1 });
    const [apiPort, opsPort, corePort] = await Promise.all([freePort(), freePort(), freePort()]);
    api = `https://127.0.0.1:${apiPort}`;
    gatewayOps = `https://127.0.0.1:${opsPort}`;
    coreOps = `https://127.0.0.1:${corePort}`;
    const q = (v: string) => JSON.stringify(v);
    const configPath = path.join(dir, 'cluster.hcl');
    await writeFile(
      configPath,
      `cluster_secret = ${q(randomBytes(32).toString('base64'))}
controller {}
listener "tcp" {
  purpose            = "api"
  address            = "127.0.0.1:${apiPort}"
  tls_cert_file      = ${q(certs.certFile)}
  tls_key_file       = ${q(certs.keyFile)}
  tls_min_version    = "tls13"
  tls_client_ca_file = ${q(certs.caFile)}
}
listener "tcp" {
  purpose                            = "ops"
  address                            = "127.0.0.1:${opsPort}"
  tls_cert_file                      = ${q(certs.certFile)}
  tls_key_file                       = ${q(certs.keyFile)}
  tls_client_ca_file                 = ${q(certs.caFile)}
  tls_require_and_verify_client_cert = true
}
storage "postgresql" {
  connection_url  = ${q(database.url)}
  max_connections = 5
}
nats {
  url            = ${q(natsUrl())}
  subject_prefix = ${q(uniqueSubjectPrefix('opstls'))}
}
`,
      { mode: 0o600 },
    );
    const launch = (name: string, env: Record<string, string> = {}) => {
      const proc = ManagedProcess.launch({
        name,
        entry: appEntry(name),
        args: ['-config', configPath],
        env,
        onLine: echoLines(name),
      });
      procs.push(proc);
      return proc;
    };
    const core = launch('core-sys', { COFFER_OPS_LISTEN_ADDRESS: hostPort(coreOps) });
    const gateway = launch('gateway');
    for (const [proc, url] of [
      [core, coreOps],
      [gateway, gatewayOps],
    ] as const) {
      await waitFor(async () => (await get(`${url}/health`, client)).status === 200, {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: `${proc.name} ops health over TLS\n${proc.output()}`,
      });
    }
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop(5_000)));
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the API over TLS 1.3 with the configured certificate (openssl s_client)', () => {
    const ok = sClient(hostPort(api));
    expect(ok.stderr).toContain('Verification: OK');
    expect(ok.stderr).toContain('Protocol version: TLSv1.3');
    // tls_min_version = "tls13"
    const old = sClient(hostPort(api), '-tls1_2');
    expect(old.status).not.toBe(0);
    expect(old.stderr).not.toContain('Protocol version: TLSv1.2');
  });

  it('answers API requests over https (Node client verifying the test CA)', async () => {
    const res = await get(`${api}/v1/sys/seal-status`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body ?? '{}')).toMatchObject({ type: 'shamir', initialized: false });
    // an untrusted server certificate is refused by the client
    expect((await get(`${api}/v1/sys/seal-status`, { ca: undefined })).error).toMatch(
      /SELF_SIGNED|UNABLE_TO_VERIFY/,
    );
  });

  it('api: a client certificate is optional, but one that is presented must come from tls_client_ca_file', async () => {
    expect((await get(`${api}/v1/sys/seal-status`, client)).status).toBe(200);
    const other = await mkdtemp(path.join(tmpdir(), 'coffer-ops-tls-other-'));
    try {
      makeTestCertificates(other);
      const stranger = makeTestClientCertificate(other, 'stranger');
      expect((await get(`${api}/v1/sys/seal-status`, stranger)).status).toBeUndefined();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('ops listeners of the gateway and of a service require a client certificate from the CA', async () => {
    for (const url of [gatewayOps, coreOps]) {
      const res = await get(`${url}/health`, client);
      expect(res).toEqual({ status: 200, body: '' });
      expect((await get(`${url}/health`)).status).toBeUndefined();
      const withCert = sClient(
        hostPort(url),
        '-cert',
        path.join(dir, 'probe.pem'),
        '-key',
        path.join(dir, 'probe.key'),
      );
      expect(withCert.stderr).toContain('Verification: OK');
    }
  });
});
