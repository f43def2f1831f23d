import { randomUUID } from 'node:crypto';
import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import { jsonResult, type HttpResult } from '../response/envelope';
import type { GatewayService } from '../gateway.service';
import { sendResult, type ReplyLike } from './v1-routes';

/**
 * Failures that happen before the /v1 pipeline runs (Fastify's body limit, malformed framing
 * detected by Fastify, unknown paths outside /v1) in the same `{"errors":[...]}` shape.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  constructor(private readonly service: GatewayService) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<ReplyLike>();
    const request = http.getRequest<{ raw?: { method?: string } }>();
    sendResult(reply, this.render(exception, request.raw?.method ?? 'GET'));
  }

  private render(exception: unknown, method: string): HttpResult {
    const status =
      exception instanceof HttpException
        ? exception.getStatus()
        : (exception as { statusCode?: unknown } | null)?.statusCode;
    if (status === 413) {
      return this.service.failure(
        new DomainError('payload_too_large', 'http: request body too large'),
        randomUUID(),
        method,
      );
    }
    if (status === 404) return jsonResult(404, { errors: [] });
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return jsonResult(status, { errors: [(exception as Error).message] });
    }
    return this.service.failure(exception, randomUUID(), method);
  }
}
