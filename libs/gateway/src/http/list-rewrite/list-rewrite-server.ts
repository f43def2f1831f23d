import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ListRewriteSocket } from './list-rewrite-socket';
import { DEFAULT_FRAMER_LIMITS, type FramerLimits } from './request-framer';

type ConnectionListener = (this: Server, socket: unknown) => void;

/**
 * An HTTP server (a net.Server underneath) whose accepted TCP connections pass through the LIST
 * rewriting framer before Node's HTTP parser sees a byte. Node's own connection listener is kept
 * and handed the wrapping socket instead of the TCP socket (Node documents that any Duplex may be
 * injected as a connection), so timeouts, keep-alive, closeIdleConnections and the rest behave
 * as usual. Usable as Fastify's `serverFactory`.
 */
export function createListRewriteServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: ServerOptions = {},
  limits: FramerLimits = DEFAULT_FRAMER_LIMITS,
): Server {
  const server = createServer(options, (req, res) => {
    const socket = req.socket as unknown;
    if (socket instanceof ListRewriteSocket) socket.track(res);
    handler(req, res);
  });
  const nodeListeners = server.listeners('connection') as ConnectionListener[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const wrapped = new ListRewriteSocket(socket, limits);
    for (const listener of nodeListeners) listener.call(server, wrapped);
  });
  return server;
}
