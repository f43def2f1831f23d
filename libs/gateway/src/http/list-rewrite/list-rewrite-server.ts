import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { enforceClientCertificates, type ListenerTlsOptions } from '@coffer/service-host';
import { ListRewriteSocket } from './list-rewrite-socket';
import { DEFAULT_FRAMER_LIMITS, type FramerLimits } from './request-framer';

type ConnectionListener = (this: Server, socket: unknown) => void;

/**
 * An HTTP server (a net.Server underneath) whose accepted TCP connections pass through the LIST
 * rewriting framer before Node's HTTP parser sees a byte. Node's own connection listener is kept
 * and handed the wrapping socket instead of the TCP socket (Node documents that any Duplex may be
 * injected as a connection), so timeouts, keep-alive, closeIdleConnections and the rest behave
 * as usual. Usable as Fastify's `serverFactory`.
 *
 * With TLS the framer sits between TLS and HTTP: Node's HTTPS server hands its HTTP connection
 * listener the decrypted TLS socket on `secureConnection`, and that listener is swapped the same way.
 */
export interface ListRewriteServerOptions {
  http?: ServerOptions;
  tls?: ListenerTlsOptions;
  limits?: FramerLimits;
}

export function createListRewriteServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: ListRewriteServerOptions = {},
): Server {
  const limits = options.limits ?? DEFAULT_FRAMER_LIMITS;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket as unknown;
    if (socket instanceof ListRewriteSocket) socket.dispatch(res, () => handler(req, res));
    else handler(req, res);
  };
  let server: Server;
  if (options.tls) {
    server = createHttpsServer({ ...options.http, ...options.tls }, onRequest);
  } else server = createServer(options.http ?? {}, onRequest);
  const event = options.tls ? 'secureConnection' : 'connection';
  const nodeListeners = server.listeners(event) as ConnectionListener[];
  server.removeAllListeners(event);
  server.on(event, (socket: Socket) => {
    const wrapped = new ListRewriteSocket(socket, limits);
    for (const listener of nodeListeners) listener.call(server, wrapped);
  });
  // Prepended after the swap: it sees the TLS socket itself and runs before HTTP does.
  if (options.tls) enforceClientCertificates(server as HttpsServer, options.tls);
  return server;
}
