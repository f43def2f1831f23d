import { Client } from 'pg';
import {
  parsePrometheusText,
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  uniq,
  type Cluster,
  type DevServer,
  type PromExposition,
} from './support';

jest.setTimeout(180_000);

/** kv, and ssh for a lease (the others answer 404 while unmounted): fewer processes. */
const ENGINES_USED = { pki: 0, directory: 0, 'cloud-creds': 0 };

async function scrape(url: string): Promise<PromExposition> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await res.text());
}

const KV_ROUTE = { method: 'PUT', route: 'secret/data/:path*', status: '200' };

/**
 * Prometheus text on every process's ops listener and Vault's sys/metrics on the API: request
 * counts and latencies by route template and status (gateway), transport latencies (both ends),
 * event-store append and commit latencies and batch sizes (kv), lease counts, seal status and
 * plugin restarts (core-sys), and the process metrics, scraped and parsed.
 */
describe('cluster: metrics', () => {
  let cluster: Cluster;
  let pg: Client;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'metrics', replicas: ENGINES_USED });
    pg = new Client({ connectionString: cluster.databaseUrl });
    await pg.connect();
    for (let i = 0; i < 3; i++) {
      expect((await cluster.client.put(`secret/data/${uniq('m')}`, { data: { i } })).status).toBe(200);
    }
    expect((await cluster.client.get(`secret/data/${uniq('absent')}`)).status).toBe(404);
    // a lease: an SSH one-time password
    expect((await cluster.client.post('sys/mounts/ssh', { type: 'ssh' })).status).toBe(204);
    const role = { key_type: 'otp', default_user: 'deploy', cidr_list: '127.0.0.0/8' };
    expect((await cluster.client.post('ssh/roles/otp', role)).status).toBe(204);
    const deadline = Date.now() + 30_000;
    let issued = await cluster.client.post('ssh/creds/otp', { ip: '127.0.0.1' });
    while (issued.status !== 200 && Date.now() < deadline) {
      issued = await cluster.client.post('ssh/creds/otp', { ip: '127.0.0.1' });
    }
    expect(issued.body.lease_id).toMatch(/^ssh\/creds\/otp\//);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await pg?.end();
    await cluster?.stop();
  });

  it('answers /metrics on the ops listener of every process', async () => {
    for (const proc of [cluster.processes.gateway, ...Object.values(cluster.processes.services).flat()]) {
      const metrics = await scrape(`${cluster.opsUrlOf(proc)}/metrics`);
      expect(metrics.types.get('coffer_process_cpu_user_seconds_total')).toBe('counter');
      expect(metrics.value('coffer_process_resident_memory_bytes')).toBeGreaterThan(0);
    }
  });

  it('counts and times API requests by route template and status on the gateway', async () => {
    const metrics = await scrape(`${cluster.opsUrlOf(cluster.processes.gateway)}/metrics`);
    expect(metrics.types.get('coffer_http_requests_total')).toBe('counter');
    expect(metrics.types.get('coffer_http_request_duration_seconds')).toBe('histogram');
    expect(metrics.value('coffer_http_requests_total', KV_ROUTE)).toBeGreaterThanOrEqual(3);
    expect(
      metrics.value('coffer_http_requests_total', {
        method: 'GET',
        route: 'secret/data/:path*',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(metrics.value('coffer_http_request_duration_seconds_count', KV_ROUTE)).toBeGreaterThanOrEqual(3);
    expect(metrics.value('coffer_http_request_duration_seconds_bucket', { ...KV_ROUTE, le: '+Inf' })).toBe(
      metrics.value('coffer_http_request_duration_seconds_count', KV_ROUTE),
    );
    // paths are never labels: only templates
    for (const sample of metrics.find('coffer_http_requests_total')) {
      expect(sample.labels['route']).not.toMatch(/^secret\/data\/m-/);
    }
    const sent = { subject: 'kv.v2.data.write', service: 'kv', outcome: 'ok' };
    expect(metrics.value('coffer_transport_request_duration_seconds_count', sent)).toBeGreaterThanOrEqual(3);
    expect(
      metrics.value('coffer_transport_request_duration_seconds_count', {
        subject: 'kv.v2.data.read',
        service: 'kv',
        outcome: 'not_found',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('times handlers and event-store appends and commits, with batch sizes, on kv', async () => {
    const [kv] = cluster.processes.kv;
    const metrics = await scrape(`${cluster.opsUrlOf(kv as (typeof cluster.processes.kv)[number])}/metrics`);
    const handled = { subject: 'kv.v2.data.write', service: 'kv', outcome: 'ok' };
    expect(metrics.value('coffer_transport_handler_duration_seconds_count', handled)).toBeGreaterThanOrEqual(
      3,
    );
    const kvSchema = { schema: 'kv' };
    expect(metrics.types.get('coffer_event_store_append_duration_seconds')).toBe('histogram');
    expect(
      metrics.value('coffer_event_store_append_duration_seconds_count', kvSchema),
    ).toBeGreaterThanOrEqual(3);
    const commits = metrics.value('coffer_event_store_commit_duration_seconds_count', kvSchema) ?? 0;
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(metrics.value('coffer_event_store_batch_appends_count', kvSchema)).toBe(commits);
    expect(metrics.value('coffer_event_store_batch_appends_sum', kvSchema)).toBeGreaterThanOrEqual(3);
    expect(metrics.value('coffer_event_store_batch_events_sum', kvSchema)).toBeGreaterThanOrEqual(3);
  });

  it('reports seal status, lease counts and plugin restarts on core-sys', async () => {
    const metrics = await scrape(`${cluster.opsUrlOf(cluster.processes.coreSys)}/metrics`);
    expect(metrics.value('coffer_sealed')).toBe(0);
    expect(metrics.value('coffer_initialized')).toBe(1);
    expect(metrics.value('vault_core_unsealed')).toBe(1);
    const { rows } = await pg.query<{ n: string }>('select count(*) as n from core_sys.leases');
    const total = Number(rows[0]?.n);
    expect(total).toBeGreaterThanOrEqual(1);
    expect(
      (metrics.value('coffer_leases', { state: 'revocable' }) ?? -1) +
        (metrics.value('coffer_leases', { state: 'irrevocable' }) ?? -1),
    ).toBe(total);
    expect(metrics.value('vault_expire_num_leases')).toBe(total);
    expect(metrics.types.get('coffer_plugin_restarts_total')).toBe('counter');
  });

  it("serves Vault's sys/metrics: Prometheus text with format=prometheus, JSON otherwise", async () => {
    const text = await fetch(`${cluster.baseUrl}/v1/sys/metrics?format=prometheus`, {
      headers: { 'x-service-token': cluster.rootToken },
    });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const parsed = parsePrometheusText(await text.text());
    expect(parsed.value('coffer_sealed')).toBe(0);

    const json = await cluster.client.get('sys/metrics');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.body.Timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000 UTC$/);
    expect(json.body.Points).toEqual([]);
    expect(json.body.Gauges).toContainEqual({ Name: 'coffer_sealed', Value: 0, Labels: {} });
    expect(json.body.Samples).toContainEqual(
      expect.objectContaining({
        Name: 'coffer_transport_handler_duration_seconds',
        Count: expect.any(Number),
      }),
    );
    expect(json.body.Counters).toContainEqual(
      expect.objectContaining({ Name: 'coffer_process_cpu_user_seconds_total' }),
    );

    const bad = await cluster.client.get('sys/metrics?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: ['metric response format "xml" unknown'] });
    expect((await cluster.client.withToken(undefined).get('sys/metrics')).status).toBe(403);
  });

  it('shows a sealed core-sys on its ops listener', async () => {
    expect((await cluster.client.put('sys/seal')).status).toBe(204);
    const deadline = Date.now() + 30_000;
    let sealed: number | undefined;
    while (sealed !== 1 && Date.now() < deadline) {
      sealed = (await scrape(`${cluster.opsUrlOf(cluster.processes.coreSys)}/metrics`)).value(
        'coffer_sealed',
      );
    }
    expect(sealed).toBe(1);
  });
});

/** Dev mode: one process, so sys/metrics shows the gateway's request metrics too. */
describe('dev: metrics', () => {
  let dev: DevServer;

  beforeAll(async () => {
    dev = await startDevServer();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await dev?.stop();
  });

  it('serves the same registry on /metrics and sys/metrics', async () => {
    expect((await dev.client.put(`secret/data/${uniq('dev')}`, { data: { v: 1 } })).status).toBe(200);
    const ops = await scrape(`${dev.opsUrl}/metrics`);
    expect(ops.value('coffer_http_requests_total', KV_ROUTE)).toBe(1);
    const res = await fetch(`${dev.baseUrl}/v1/sys/metrics?format=prometheus`, {
      headers: { 'x-service-token': dev.rootToken },
    });
    const api = parsePrometheusText(await res.text());
    expect(api.value('coffer_http_requests_total', KV_ROUTE)).toBe(1);
    expect(api.value('coffer_sealed')).toBe(0);
    expect(
      api.value('coffer_event_store_append_duration_seconds_count', { schema: 'kv' }),
    ).toBeGreaterThanOrEqual(1);
  });
});
