// Run as a child process by instrumentation.int-spec.ts: jest's module registry bypasses the
// require hooks instrumentations rely on, so only a real Node process shows what they patch.
// Imports come first on purpose, as in an app's compiled main.
import { createServer, request } from 'node:http';
import { Pool } from 'pg';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { pgUrl } from '@coffer/testing';
import { startTelemetry, withService } from '../src';

const SECRET = process.argv[2] ?? 'missing';

async function main(): Promise<void> {
  const memory = new InMemorySpanExporter();
  const telemetry = startTelemetry({ serviceName: 'probe', exporter: memory });

  const pool = new Pool({
    connectionString: `${pgUrl()}${pgUrl().includes('?') ? '&' : '?'}application_name=${SECRET}`,
    max: 1,
  });
  // A query is recorded as part of a request (a SERVER span), never as a trace of its own.
  const incoming = trace.getTracer('probe').startSpan('request', { kind: SpanKind.SERVER });
  await context.with(trace.setSpan(context.active(), incoming), () =>
    withService('kv', () => pool.query('select $1::text as value', [SECRET])),
  );
  incoming.end();
  await pool.query('select 1');
  await pool.end();

  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  // An outgoing call made while serving a request: client and server spans in its trace.
  const caller = trace.getTracer('probe').startSpan('caller', { kind: SpanKind.SERVER });
  await context.with(
    trace.setSpan(context.active(), caller),
    () =>
      new Promise<void>((resolve, reject) => {
        const path = `/probe?token=${SECRET}`;
        request({ host: '127.0.0.1', port, path, headers: { 'x-secret': SECRET } }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
          .on('error', reject)
          .end();
      }),
  );
  caller.end();
  await new Promise((resolve) => server.close(resolve));

  const spans = memory
    .getFinishedSpans()
    .map((s) => ({ name: s.name, kind: s.kind, attributes: s.attributes }));
  await telemetry.shutdown();
  process.stdout.write(JSON.stringify(spans));
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
