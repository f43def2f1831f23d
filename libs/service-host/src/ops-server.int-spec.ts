import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCertificates, makeTestClientCertificate, type TestCertificates } from '@coffer/testing';
import { loadListenerTls } from './listener-tls';
import { serveOpsMetrics } from './ops-metrics';
import { startOpsServer, type OpsServer } from './ops-server';

// openssl key generation in the TLS cases is slow on a busy machine
jest.setTimeout(60_000);

describe('startOpsServer', () => {
  let ops: OpsServer;
  let healthy = true;
  let hang = false;
  const failures: string[] = [];
  const status = async (method: string, path = '/health') =>
    (await fetch(`${ops.url}${path}`, { method })).status;

  beforeAll(async () => {
    ops = await startOpsServer('127.0.0.1:0', {
      checks: {
        nats: () => healthy,
        postgres: () => (hang ? new Promise<void>(() => undefined) : undefined),
      },
      checkTimeoutMs: 300,
      checkCacheMs: 0,
      onUnhealthy: (check, reason) => failures.push(`${check}: ${reason}`),
    });
  });
  afterAll(() => ops.close());

  it('binds the port it was given (0 = any) and reports it', () => {
    expect(ops.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(ops.address).not.toBe('127.0.0.1:0');
    expect(ops.url).toBe(`http://${ops.address}`);
  });

  it('answers 503 while starting, 200 while serving, 500 when a check fails or hangs', async () => {
    expect(await status('GET')).toBe(503);
    ops.markServing();
    expect(await status('GET')).toBe(200);
    expect(await status('HEAD')).toBe(200);
    expect(await (await fetch(`${ops.url}/health`)).text()).toBe('');
    healthy = false;
    expect(await status('GET')).toBe(500);
    healthy = true;
    hang = true;
    expect(await status('GET')).toBe(500);
    hang = false;
    expect(await status('GET')).toBe(200);
    expect(failures).toEqual(['nats: unavailable', 'postgres: no answer within 300 ms']);
  });

  it('probes close together share one run of the checks', async () => {
    let runs = 0;
    const cached = await startOpsServer('127.0.0.1:0', { checks: { count: () => void runs++ } });
    try {
      cached.markServing();
      const codes = await Promise.all(
        [1, 2, 3].map(async () => (await fetch(`${cached.url}/health`)).status),
      );
      expect(codes).toEqual([200, 200, 200]);
      expect(runs).toBe(1);
    } finally {
      await cached.close();
    }
  });

  it('serves routes registered later (/metrics), GET and HEAD only', async () => {
    expect(await status('GET', '/metrics')).toBe(404);
    ops.route('/metrics', (_req, res) => {
      res.setHeader('content-type', 'text/plain; version=0.0.4');
      res.end('up 1\n');
    });
    expect(await (await fetch(`${ops.url}/metrics`)).text()).toBe('up 1\n');
    ops.route('/boom', () => {
      throw new Error('boom');
    });
    expect(await status('GET', '/boom')).toBe(500);
    expect(await status('POST')).toBe(405);
  });

  it('answers 503 once shutdown began, whatever the checks say', async () => {
    ops.beginShutdown();
    ops.markServing();
    expect(await status('GET')).toBe(503);
    expect(await status('GET', '/health?x=1')).toBe(503);
  });

  it('serves the Prometheus text format on GET /metrics (serveOpsMetrics), whatever the health', async () => {
    const withMetrics = await startOpsServer('127.0.0.1:0');
    withMetrics.route('/metrics', serveOpsMetrics);
    try {
      const res = await fetch(`http://${withMetrics.address}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(await res.text()).toContain('# TYPE coffer_process_cpu_user_seconds_total counter');
      expect((await fetch(`http://${withMetrics.address}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await withMetrics.close();
    }
  });
});

describe('startOpsServer with TLS', () => {
  let dir: string;
  let certs: TestCertificates;
  let ops: OpsServer;
  /** status of GET /health over TLS, or the client's error code */
  const get = (options: { cert?: string; key?: string; maxVersion?: 'TLSv1.2' } = {}) =>
    new Promise<number | string>((resolve) => {
      const req = request(`${ops.url}/health`, { ca: certs.ca, ...options }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end();
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ops-tls-'));
    certs = makeTestCertificates(dir);
  });
  afterEach(() => ops.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves https with the configured minimum version', async () => {
    ops = await startOpsServer('127.0.0.1:0', {
      tls: loadListenerTls({
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        minVersion: 'TLSv1.3',
        requireClientCert: false,
      }),
    });
    ops.markServing();
    expect(ops.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await get()).toBe(200);
    // tls_min_version = "tls13": a TLS 1.2-only client is refused
    expect(await get({ maxVersion: 'TLSv1.2' })).not.toBe(200);
  });

  it('requires a client certificate signed by tls_client_ca_file when told to', async () => {
    const client = makeTestClientCertificate(dir, 'probe');
    ops = await startOpsServer('127.0.0.1:0', {
      tls: loadListenerTls({
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        minVersion: 'TLSv1.2',
        clientCaFile: certs.caFile,
        requireClientCert: true,
      }),
    });
    ops.markServing();
    expect(await get(client)).toBe(200);
    expect(await get()).not.toBe(200);
    // a certificate of another CA (the server's own key pair is not a client certificate of the CA)
    const other = mkdtempSync(join(tmpdir(), 'ops-tls-other-'));
    try {
      makeTestCertificates(other);
      const stranger = makeTestClientCertificate(other, 'stranger');
      expect(await get(stranger)).not.toBe(200);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('with a client CA but no requirement: no certificate is fine, a foreign one is not', async () => {
    ops = await startOpsServer('127.0.0.1:0', {
      tls: loadListenerTls({
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        minVersion: 'TLSv1.2',
        clientCaFile: certs.caFile,
        requireClientCert: false,
      }),
    });
    ops.markServing();
    expect(await get()).toBe(200);
    expect(await get(makeTestClientCertificate(dir, 'friend'))).toBe(200);
    const other = mkdtempSync(join(tmpdir(), 'ops-tls-other-'));
    try {
      makeTestCertificates(other);
      expect(await get(makeTestClientCertificate(other, 'stranger'))).not.toBe(200);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
