import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  SPAN_KIND,
  STATUS,
  startCluster,
  startDevServer,
  startOtlpReceiver,
  START_TIMEOUT_MS,
  uniq,
  type Cluster,
  type DevServer,
  type OtlpReceiver,
  type ReceivedSpan,
} from './support';

jest.setTimeout(180_000);

/** The engines a kv request involves (the others answer 404 while unmounted): fewer processes. */
const ONLY_CORE = { pki: 0, ssh: 0, directory: 0, 'cloud-creds': 0 };

const spansOf = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);
const serviceOf = (span: ReceivedSpan) => span.resource['service.name'];

/** The gateway's HTTP span of a request, found by the request id it carries. */
const httpSpan = (spans: ReceivedSpan[], requestId: string) =>
  spans.find((s) => s.kind === SPAN_KIND.server && s.attributes['coffer.request_id'] === requestId);

/** Every span of the trace has its parent in the trace, except the one root. */
function expectWellParented(trace: ReceivedSpan[]): ReceivedSpan {
  const ids = new Set(trace.map((s) => s.spanId));
  const roots = trace.filter((s) => s.parentSpanId === '');
  expect(roots).toHaveLength(1);
  for (const span of trace) if (span.parentSpanId !== '') expect(ids.has(span.parentSpanId)).toBe(true);
  return roots[0] as ReceivedSpan;
}

/** Whether every span of the trace that names a parent has it (the trace has fully arrived). */
function complete(trace: ReceivedSpan[]): boolean {
  const ids = new Set(trace.map((s) => s.spanId));
  return trace.every((s) => s.parentSpanId === '' || ids.has(s.parentSpanId));
}

/** Whether `descendant` is below `ancestor` in `trace`. */
function isBelow(trace: ReceivedSpan[], descendant: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  for (let at = byId.get(descendant.parentSpanId); at; at = byId.get(at.parentSpanId)) {
    if (at.spanId === ancestor.spanId) return true;
  }
  return false;
}

/**
 * Traces of a cluster exported over OTLP/HTTP (protobuf) to a local collector: one trace per
 * request across gateway → NATS → kv → Postgres, spans named by route, no secret, token or query
 * value anywhere, batch work linked to the requests it served, errors marked by the HTTP rules,
 * no traces while idle or for probes, the resource of each process, and the trace id in audit
 * entries and error logs.
 */
describe('cluster: traces across services', () => {
  let receiver: OtlpReceiver;
  let cluster: Cluster;
  let pg: Client;
  let auditDir: string;
  const secret = `trace-secret-${randomBytes(8).toString('hex')}`;
  const queryToken = `query-token-${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    auditDir = await mkdtemp(path.join(tmpdir(), 'coffer-traces-'));
    cluster = await startCluster({
      label: 'traces',
      replicas: ONLY_CORE,
      env: {
        COFFER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=e2e,team=ops%20crew',
      },
    });
    pg = new Client({ connectionString: cluster.databaseUrl });
    await pg.connect();
    const audit = await cluster.client.put('sys/audit/file', {
      type: 'file',
      options: { file_path: path.join(auditDir, 'audit.log') },
    });
    expect(audit.status).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await pg?.end();
    await cluster?.stop();
    await receiver?.close();
    if (auditDir) await rm(auditDir, { recursive: true, force: true });
  });

  const allText = (spans: ReceivedSpan[]) => JSON.stringify(spans);

  it('follows a kv write from the gateway through NATS to kv and its Postgres statements', async () => {
    const key = uniq('traced');
    const res = await cluster.client.put(`secret/data/${key}?token=${queryToken}`, {
      data: { password: secret },
    });
    expect(res.status).toBe(200);
    const requestId = res.body.request_id as string;

    const spans = await receiver.waitFor((received) => {
      const http = httpSpan(received, requestId);
      if (http === undefined) return false;
      const trace = spansOf(received, http.traceId);
      return (
        complete(trace) && trace.some((s) => s.name.startsWith('pg.query') && serviceOf(s) === 'coffer-kv')
      );
    });
    const http = httpSpan(spans, requestId) as ReceivedSpan;
    const trace = spansOf(spans, http.traceId);
    expect(expectWellParented(trace)).toBe(http);

    // named by route template and mount, with Vault's operation and request id
    expect(http.name).toBe('PUT secret/data/:path*');
    expect(http.attributes).toMatchObject({
      'http.route': 'secret/data/:path*',
      'coffer.operation': 'create',
      'coffer.request_id': requestId,
      'coffer.mount.type': 'kv',
      'coffer.mount.path': 'secret/',
      'http.target': `/v1/secret/data/${key}`,
    });
    expect(serviceOf(http)).toBe('coffer-gateway');
    expect(http.status.code).toBe(STATUS.unset);

    const send = trace.find((s) => s.name === 'send kv.v2.data.write');
    const processing = trace.find((s) => s.name === 'process kv.v2.data.write');
    expect(send?.kind).toBe(SPAN_KIND.client);
    expect(send && isBelow(trace, send, http)).toBe(true);
    expect(processing?.kind).toBe(SPAN_KIND.server);
    expect(processing?.parentSpanId).toBe(send?.spanId);
    expect(processing && serviceOf(processing)).toBe('coffer-kv');

    // the append of this request (alone in its group commit) and its statements, under kv's span
    const commit = trace.find((s) => s.name === 'event-store commit kv');
    expect(commit && processing && isBelow(trace, commit, processing)).toBe(true);
    const statements = trace.filter((s) => s.name.startsWith('pg.query') && serviceOf(s) === 'coffer-kv');
    expect(statements.length).toBeGreaterThan(0);
    // each under the kv request it served (the write, or the gateway's existence check)
    const kvRequests = trace.filter((s) => s.name.startsWith('process kv.'));
    for (const statement of statements) {
      expect(kvRequests.some((r) => isBelow(trace, statement, r))).toBe(true);
      expect(statement.attributes['db.connection_string']).not.toMatch(/[?@]/);
    }
    expect(statements.some((s) => processing !== undefined && isBelow(trace, s, processing))).toBe(true);
    expect(statements.some((s) => commit !== undefined && isBelow(trace, s, commit))).toBe(true);

    // never a secret, a token or a query value, in any span of any trace so far
    const everything = allText(receiver.spans());
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(cluster.rootToken);
    expect(everything).not.toContain(queryToken);
  });

  it('describes each process in its resource', async () => {
    const spans = receiver.spans();
    const byService = new Map(spans.map((s) => [serviceOf(s), s.resource]));
    expect([...byService.keys()]).toEqual(expect.arrayContaining(['coffer-gateway', 'coffer-kv']));
    const instances = new Set<unknown>();
    for (const resource of byService.values()) {
      expect(resource).toMatchObject({
        'service.namespace': 'coffer',
        'service.version': '0.1.0',
        'deployment.environment': 'e2e',
        team: 'ops crew',
      });
      expect(resource['service.instance.id']).toEqual(expect.any(String));
      instances.add(resource['service.instance.id']);
    }
    expect(instances.size).toBe(byService.size);
    expect(receiver.contentTypes().every((t) => t === 'application/x-protobuf')).toBe(true);
  });

  it('gives batched work its own span, linked to every request it served', async () => {
    // Concurrent writes and reads on one kv replica share group commits and read batches; a
    // burst may happen to be served one by one, so bursts go on until one batch is shared.
    const key = uniq('batch');
    await cluster.client.put(`secret/data/${key}`, { data: { n: 0 } });
    const requestIds = new Set<string>();
    const shared = (spans: ReceivedSpan[]) =>
      spans.filter(
        (s) =>
          (s.name === 'event-store commit kv' || s.name === 'kv read batch') &&
          s.links.length >= 2 &&
          s.links.every((l) => spans.some((r) => r.spanId === l.spanId)),
      );
    const deadline = Date.now() + 60_000;
    while (shared(receiver.spans()).length === 0) {
      if (Date.now() > deadline) throw new Error('no batch served two requests');
      const answers = await Promise.all([
        ...Array.from({ length: 16 }, (_, i) =>
          cluster.client.put(`secret/data/${key}-${i}`, { data: { i } }),
        ),
        ...Array.from({ length: 16 }, () => cluster.client.get(`secret/data/${key}`)),
      ]);
      for (const a of answers) requestIds.add(a.body.request_id as string);
      await receiver.waitFor((spans) => [...requestIds].every((id) => httpSpan(spans, id) !== undefined));
    }
    const spans = receiver.spans();
    for (const batch of shared(spans)) {
      // a trace of its own: not a child of any request it served
      expect(batch.parentSpanId).toBe('');
      expect(batch.attributes['coffer.batch.size']).toBe(batch.links.length);
      const linkedTraces = new Set(batch.links.map((l) => l.traceId));
      expect(linkedTraces.has(batch.traceId)).toBe(false);
      expect(linkedTraces.size).toBe(batch.links.length);
      for (const link of batch.links) {
        const linked = spans.find((s) => s.spanId === link.spanId);
        expect(linked?.traceId).toBe(link.traceId);
        expect(linked && serviceOf(linked)).toBe('coffer-kv');
      }
      // its statements are its own
      const statements = spansOf(spans, batch.traceId).filter((s) => s.name.startsWith('pg.query'));
      expect(statements.length).toBeGreaterThan(0);
    }
  });

  it('marks 5xx as errors on every span, and leaves 4xx answers unmarked', async () => {
    // a 404 and a 403
    const missing = await cluster.client.get(`secret/data/${uniq('missing')}`);
    expect(missing.status).toBe(404);
    const denied = await cluster.client.withToken('not-a-token').get('secret/data/anything');
    expect(denied.status).toBe(403);

    // a 500: a ciphertext corrupted in Postgres
    const key = uniq('corrupt');
    expect((await cluster.client.put(`secret/data/${key}`, { data: { password: secret } })).status).toBe(200);
    const updated = await pg.query(
      `update kv.kv2_versions
          set ciphertext = set_byte(ciphertext, length(ciphertext) - 1,
                                    get_byte(ciphertext, length(ciphertext) - 1) # 1)
        where path like $1`,
      [`%${key}`],
    );
    expect(updated.rowCount).toBe(1);
    const broken = await cluster.client.get(`secret/data/${key}`);
    expect(broken.status).toBe(500);

    const ids = [missing, denied, broken].map((r) => r.body.request_id as string | undefined);
    // error answers carry no request id in their body: find the HTTP spans by route and status
    expect(ids.every((id) => id === undefined)).toBe(true);
    const byStatus = (spans: ReceivedSpan[], status: number, route: string) =>
      spans.find(
        (s) =>
          s.kind === SPAN_KIND.server &&
          s.attributes['http.status_code'] === status &&
          (route === '' || s.attributes['http.route'] === route),
      );
    const spans = await receiver.waitFor(
      (received) =>
        byStatus(received, 404, 'secret/data/:path*') !== undefined &&
        byStatus(received, 403, 'secret/data/:path*') !== undefined &&
        byStatus(received, 500, 'secret/data/:path*') !== undefined,
    );

    const notFound = byStatus(spans, 404, 'secret/data/:path*') as ReceivedSpan;
    await receiver.waitFor((received) => {
      const trace = spansOf(received, notFound.traceId);
      return complete(trace) && trace.some((s) => s.name === 'process kv.v2.data.read');
    });
    for (const span of spansOf(receiver.spans(), notFound.traceId)) {
      expect(span.status.code).toBe(STATUS.unset);
    }
    expect(
      spansOf(receiver.spans(), notFound.traceId).find((s) => s.name === 'process kv.v2.data.read')
        ?.attributes['coffer.error_code'],
    ).toBe('not_found');

    const forbidden = byStatus(spans, 403, 'secret/data/:path*') as ReceivedSpan;
    expect(forbidden.status.code).toBe(STATUS.unset);

    const failed = byStatus(spans, 500, 'secret/data/:path*') as ReceivedSpan;
    const failedTrace = await receiver.waitFor((received) => {
      const trace = spansOf(received, failed.traceId);
      return complete(trace) && trace.some((s) => s.name === 'process kv.v2.data.read');
    });
    expect(failed.status.code).toBe(STATUS.error);
    for (const name of ['send kv.v2.data.read', 'process kv.v2.data.read']) {
      const span = spansOf(failedTrace, failed.traceId).find((s) => s.name === name);
      expect(span?.status).toEqual({ code: STATUS.error, message: 'internal' });
    }

    // the one log line of the failure names its trace
    const line = await cluster.processes.kv[0]?.waitForLine(
      /request \S+ to "kv\.v2\.data\.read" failed: internal: /,
    );
    expect(line).toContain(`(trace ${failed.traceId})`);
    expect(allText(receiver.spans())).not.toContain(secret);
  });

  it('puts the trace id in audit entries', async () => {
    const key = uniq('audited');
    const res = await cluster.client.put(`secret/data/${key}`, { data: { v: 1 } });
    const requestId = res.body.request_id as string;
    const spans = await receiver.waitFor((received) => httpSpan(received, requestId) !== undefined);
    const traceId = httpSpan(spans, requestId)?.traceId;
    const entries = (await readFile(path.join(auditDir, 'audit.log'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string; request: { id: string; trace_id?: string } })
      .filter((e) => e.request.id === requestId);
    expect(entries.map((e) => e.type)).toEqual(['request', 'response']);
    for (const entry of entries) expect(entry.request.trace_id).toBe(traceId);
  });

  it('records nothing while idle, and nothing for probes', async () => {
    receiver.reset();
    const marker = async (): Promise<string> => {
      const res = await cluster.client.get('sys/mounts');
      expect(res.status).toBe(200);
      const requestId = res.body.request_id as string;
      await receiver.waitFor((received) => httpSpan(received, requestId) !== undefined);
      return requestId;
    };
    // probes meanwhile: the ops listeners' /health and /metrics, the API's sys/health
    const processes = [cluster.processes.gateway, cluster.processes.coreSys, ...cluster.processes.kv];
    for (const proc of processes) {
      expect((await fetch(`${cluster.opsUrlOf(proc)}/health`)).status).toBe(200);
      expect((await fetch(`${cluster.opsUrlOf(proc)}/metrics`)).status).toBe(200);
    }
    expect((await fetch(`${cluster.baseUrl}/v1/sys/health`)).status).toBe(200);
    // Two requests in sequence, each waited for: every process has exported at least one batch
    // between them (the background jobs of core-sys run every second meanwhile).
    const first = await marker();
    const second = await marker();

    const spans = receiver.spans();
    const markers = new Set(
      [first, second].map((id) => httpSpan(spans, id)?.traceId).filter((t) => t !== undefined),
    );
    const stray = spans.filter((s) => !markers.has(s.traceId));
    // batch work linked to the markers is theirs; anything else is noise
    const noise = stray.filter((s) => !s.links.some((l) => markers.has(l.traceId)));
    expect(noise.map((s) => `${s.name} (${String(serviceOf(s))})`)).toEqual([]);
    expect(spans.some((s) => s.name.startsWith('job '))).toBe(false);
    expect(spans.some((s) => JSON.stringify(s.attributes['http.target'] ?? '').includes('health'))).toBe(
      false,
    );
  });
});

/**
 * Dev mode with the OpenTelemetry SDK's own variables: OTEL_SERVICE_NAME names the process,
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json switches to OTLP/JSON, and a collector that goes away
 * is reported in the log (once, rate-limited), not silently.
 */
describe('dev: OTEL_* settings and export failures', () => {
  let receiver: OtlpReceiver;
  let dev: DevServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dev = await startDevServer({
      COFFER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'coffer-dev-e2e',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await dev?.stop();
    await receiver?.close();
  });

  it('exports OTLP/JSON under OTEL_SERVICE_NAME, one trace per request', async () => {
    const res = await dev.client.put(`secret/data/${uniq('dev')}`, { data: { v: 1 } });
    expect(res.status).toBe(200);
    const requestId = res.body.request_id as string;
    const spans = await receiver.waitFor((received) => {
      const http = httpSpan(received, requestId);
      if (http === undefined) return false;
      const trace = spansOf(received, http.traceId);
      return complete(trace) && trace.some((s) => s.name === 'process kv.v2.data.write');
    });
    const http = httpSpan(spans, requestId) as ReceivedSpan;
    const trace = spansOf(spans, http.traceId);
    expect(expectWellParented(trace)).toBe(http);
    expect(http.name).toBe('PUT secret/data/:path*');
    expect(serviceOf(http)).toBe('coffer-dev-e2e');
    // one process, several services: each span says which one it belongs to
    expect(trace.find((s) => s.name === 'process kv.v2.data.write')?.attributes['coffer.service']).toBe('kv');
    expect(receiver.contentTypes().every((t) => t.startsWith('application/json'))).toBe(true);
  });

  it('logs a failing export, without span content', async () => {
    await receiver.close();
    const key = uniq('lost');
    expect((await dev.client.put(`secret/data/${key}`, { data: { v: 1 } })).status).toBe(200);
    const line = await dev.process.waitForLine(
      /trace export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed: /,
      60_000,
    );
    expect(line).toMatch(/\d+ spans dropped/);
    expect(line).not.toContain(key);
    // one line, not a stack trace per failed batch (the minute's rate limit: export-reporting.spec)
    const lines = dev.process
      .output()
      .split('\n')
      .filter((l) => l.includes('trace export to'));
    expect(lines).toHaveLength(1);
  });
});
