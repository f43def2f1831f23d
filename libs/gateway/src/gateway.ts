import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { parseListenAddress, serveOpsMetrics, startOpsServer, type OpsServer } from '@coffer/service-host';
import { DEFAULT_MAX_REQUEST_SIZE } from '@coffer/config';
import type { GatewayListenerOptions, GatewayOptions } from './gateway.options';
import { GatewayModule } from './gateway.module';
import { GatewayService } from './gateway.service';
import { createListRewriteServer } from './http/list-rewrite/list-rewrite-server';
import { frameworkErrorHandler, registerV1Routes } from './http/v1-routes';
import { DEFAULT_JSON_LIMITS } from './request/json-limits';

export interface Gateway {
  /** Starts the API listener (and the ops listener when configured). */
  listen(): Promise<void>;
  /**
   * Graceful shutdown: /health answers 503 at once, requests are still served for
   * gracefulShutdownWaitSeconds, then the API listener closes (in-flight requests finish) and the
   * ops listener after it. Idempotent. The transport is the caller's to close.
   */
  close(): Promise<void>;
  /** "http://127.0.0.1:8200" once listening */
  readonly apiAddress: string;
  readonly opsAddress: string | undefined;
  /** the ops listener once listening (obs: `ops.route('/metrics', ...)`) */
  readonly ops: OpsServer | undefined;
}

export function createGateway(options: GatewayOptions): Gateway {
  return new GatewayHost(options);
}

function formatAddress(info: AddressInfo, tls: boolean): string {
  const host = info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
  return `${tls ? 'https' : 'http'}://${host}:${info.port}`;
}

/** Node's answer to a request it could not parse, in the API's error shape. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  const body = JSON.stringify({ errors: [status === 400 ? 'malformed HTTP request' : text.toLowerCase()] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

class GatewayHost implements Gateway {
  private app: NestFastifyApplication | undefined;
  private opsServer: OpsServer | undefined;
  private api: AddressInfo | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: GatewayOptions) {}

  get apiAddress(): string {
    if (!this.api) throw new Error('the gateway is not listening');
    return formatAddress(this.api, this.options.listeners.api.tls !== undefined);
  }

  get opsAddress(): string | undefined {
    return this.opsServer
      ? formatAddress(this.opsServer.bound, this.options.listeners.ops?.tls !== undefined)
      : undefined;
  }

  get ops(): OpsServer | undefined {
    return this.opsServer;
  }

  async listen(): Promise<void> {
    if (this.app) throw new Error('the gateway is already listening');
    const { api: apiListener, ops: opsListener } = this.options.listeners;
    const api = parseListenAddress(apiListener.address);
    const bodyLimit = apiListener.maxRequestSize ?? DEFAULT_MAX_REQUEST_SIZE;
    const adapter = new FastifyAdapter({
      serverFactory: (handler: Parameters<typeof createListRewriteServer>[0]) =>
        createListRewriteServer(handler, apiListener.tls ? { tls: apiListener.tls } : {}),
      bodyLimit,
      // Fastify's own 503 while closing has its own body shape: requests that still arrive on
      // open connections are served (each answer then closes its connection).
      return503OnClosing: false,
      logger: false,
      clientErrorHandler,
      frameworkErrors: frameworkErrorHandler,
      routerOptions: { maxParamLength: 64 * 1024 },
      skipMiddie: true,
    });
    const app = await NestFactory.create<NestFastifyApplication>(
      GatewayModule.forRoot(this.options),
      adapter,
      {
        bodyParser: false,
        abortOnError: false,
        // Nest's logger option is process-wide; only set it when the caller chose one
        ...(this.options.logger !== undefined ? { logger: this.options.logger } : {}),
      },
    );
    this.app = app;
    registerV1Routes(adapter.getInstance(), app.get(GatewayService), {
      maxBytes: bodyLimit,
      json: { ...DEFAULT_JSON_LIMITS, ...apiListener.json },
    });
    await app.listen(api.port, api.host);
    this.api = app.getHttpServer().address() as AddressInfo;
    if (opsListener) await this.listenOps(opsListener);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async listenOps(listener: GatewayListenerOptions): Promise<void> {
    // /health follows the API listener: 503 whenever it is not listening
    this.opsServer = await startOpsServer(listener.address, {
      checks: { api: () => this.app?.getHttpServer().listening === true, ...this.options.healthChecks },
      ...(listener.tls ? { tls: listener.tls } : {}),
      ...(this.options.onUnhealthy ? { onUnhealthy: this.options.onUnhealthy } : {}),
    });
    this.opsServer.route('/metrics', serveOpsMetrics);
    this.opsServer.markServing();
  }

  private async shutdown(): Promise<void> {
    this.opsServer?.beginShutdown();
    const waitMs = (this.options.gracefulShutdownWaitSeconds ?? 0) * 1000;
    // The grace period itself is the point here: load balancers see 503 on /health and move
    // traffic away while requests still succeed.
    if (waitMs > 0 && this.app) await delay(waitMs);
    await this.app?.close();
    await this.opsServer?.close();
  }
}
