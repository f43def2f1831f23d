import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
// The OTLP protobuf messages, as the exporter itself encodes them (protobufjs static code,
// typed only as a bare Root).
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root';

/** One span as a collector received it, ids in hex, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  /** OTLP status code: 0 unset, 1 ok, 2 error */
  status: { code: number; message: string };
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, unknown>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;

/** OTLP/JSON and the protobuf decoder's plain objects share this shape (ids differ in encoding). */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId?: string;
        spanId?: string;
        parentSpanId?: string;
        name?: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: Array<{ traceId?: string; spanId?: string }>;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

function plain(value: AnyValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  if (value.kvlistValue !== undefined) return flatten(value.kvlistValue.values);
  return value.bytesValue;
}

function flatten(attributes: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((a) => [a.key, plain(a.value)]));
}

function normalise(request: ExportRequest, id: (raw: string | undefined) => string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = flatten(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          name: s.name ?? '',
          kind: s.kind ?? 0,
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          attributes: flatten(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: id(l.traceId), spanId: id(l.spanId) })),
          resource,
        });
      }
    }
  }
  return out;
}

interface MessageType {
  decode(bytes: Uint8Array): object;
  toObject(
    message: object,
    options: { longs: NumberConstructor; bytes: StringConstructor; enums: NumberConstructor },
  ): ExportRequest;
}
const Request = (
  generated as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Decodes one OTLP/HTTP export body, protobuf or JSON, as a collector would. */
export function decodeExport(body: Buffer, contentType: string): ReceivedSpan[] {
  if (contentType.startsWith('application/json')) {
    // OTLP/JSON carries ids as hex strings
    return normalise(JSON.parse(body.toString('utf8')) as ExportRequest, (raw) => raw ?? '');
  }
  const message = Request.toObject(Request.decode(body), { longs: Number, bytes: String, enums: Number });
  return normalise(message, (raw) =>
    raw === undefined || raw === '' ? '' : Buffer.from(raw, 'base64').toString('hex'),
  );
}

export interface OtlpReceiver {
  /** the endpoint to configure (COFFER_OTLP_ENDPOINT): http://127.0.0.1:<port> */
  readonly endpoint: string;
  /** every span received so far */
  spans(): ReceivedSpan[];
  /** the content types of the exports received (protobuf or JSON) */
  contentTypes(): string[];
  /** resolves with the spans once `done` holds for them; fails with what was received at the deadline */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  reset(): void;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/** A local OTLP/HTTP trace collector: POST /v1/traces, protobuf or JSON, answers 200. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let received: ReceivedSpan[] = [];
  const types: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const contentType = req.headers['content-type'] ?? '';
    readAll(req).then(
      (body) => {
        received.push(...decodeExport(body, contentType));
        types.push(contentType);
        res.statusCode = 200;
        res.setHeader(
          'content-type',
          contentType.startsWith('application/json') ? 'application/json' : contentType,
        );
        res.end(contentType.startsWith('application/json') ? '{}' : undefined);
      },
      () => {
        res.statusCode = 400;
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    contentTypes: () => [...types],
    waitFor: async (done, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > deadline) {
          const names = received.map((s) => `${s.name} (${s.traceId.slice(0, 8)})`).join(', ');
          throw new Error(`the expected spans did not arrive in ${timeoutMs} ms; received: ${names}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [...received];
    },
    reset: () => {
      received = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
