import type { FastifyAdapter } from '@nestjs/platform-fastify';
import type { GatewayService } from '../gateway.service';
import type { HttpResult } from '../response/envelope';
import { readBody, type BodyLimits } from './read-body';

/** The Fastify instance Nest's adapter runs (@nestjs/platform-fastify may carry its own copy). */
export type GatewayFastify = FastifyAdapter['instance'];

/** The part of a Fastify reply the gateway uses. */
export interface ReplyLike {
  code(status: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  type(contentType: string): ReplyLike;
  send(payload?: string | Buffer): ReplyLike;
}

/** The Fastify side of /v1/*: bodies left unread for the pipeline, one catch-all route. */
export function registerV1Routes(fastify: GatewayFastify, service: GatewayService, limits: BodyLimits): void {
  // Vault does not require a Content-Type. No body is read before the pipeline knows the caller
  // (an unauthenticated flood must cost nothing); it then reads it once, raw, as JSON for writes.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  fastify.all('/v1/*', { onRequest: hideContentType }, async (request, reply) => {
    const contentType = contentTypes.get(request.raw);
    if (contentType !== undefined) request.raw.headers['content-type'] = contentType;
    const result = await service.handle({
      method: request.raw.method ?? 'GET',
      url: request.raw.url ?? '/',
      headers: request.headers,
      readBody: (json) => readBody(request.raw, limits, json),
      clientAddress: request.raw.socket.remoteAddress ?? '',
    });
    return sendResult(reply, result);
  });
}

/**
 * Fastify refuses bodies whose Content-Type is malformed or empty (415) before any parser runs;
 * Vault reads any body as JSON. The header is set aside until the body is read, so every body
 * goes to the catch-all parser, and put back for the pipeline (PATCH checks it).
 */
const contentTypes = new WeakMap<object, string>();

function hideContentType(
  request: { raw: { headers: Record<string, unknown> } },
  _reply: unknown,
  done: () => void,
): void {
  const contentType = request.raw.headers['content-type'];
  if (typeof contentType === 'string') {
    contentTypes.set(request.raw, contentType);
    delete request.raw.headers['content-type'];
  }
  done();
}

/** Fastify's router refuses targets it cannot decode before any route runs; same error shape. */
export function frameworkErrorHandler(
  error: { statusCode?: number; code?: string; message: string },
  _request: unknown,
  reply: unknown,
): void {
  const message = error.code === 'FST_ERR_BAD_URL' ? 'invalid URL escape in the request path' : error.message;
  sendResult(reply as ReplyLike, {
    status: error.statusCode ?? 400,
    body: JSON.stringify({ errors: [message] }),
    contentType: 'application/json',
  });
}

/**
 * Writes a result. The body goes as bytes: Fastify appends "; charset=utf-8" to a JSON content type
 * sent as a string, and some Vault clients only parse JSON when the header is exactly
 * `application/json`, as Vault sends it.
 */
export function sendResult<R extends ReplyLike>(reply: R, result: HttpResult): ReplyLike {
  reply.code(result.status).header('cache-control', 'no-store');
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
  if (result.body === undefined) return reply.send();
  return reply.type(result.contentType).send(result.bytes ?? Buffer.from(result.body, 'utf8'));
}
