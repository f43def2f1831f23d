import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '@coffer/testing';

/**
 * A TCP proxy on a loopback port that a test controls, in front of a shared server (Postgres, NATS)
 * or between replication clusters, so a test can fault the link without touching the server other
 * tests use:
 * - `pause()` / `resume()`: connections stay open but nothing flows (a partition without resets);
 * - `drop()`: every open connection is destroyed, new ones are accepted (a cut of the link);
 * - `cut()` / `restore()`: the listening port closes with every connection, then listens again.
 */
export interface TcpProxy {
  /** 127.0.0.1:<port>, to connect to instead of the target */
  readonly address: string;
  readonly port: number;
  pause(): void;
  resume(): void;
  drop(): void;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
  /** the same as stop */
  close(): Promise<void>;
}

/** `target` as "host:port" or `{ host, port }` */
export async function startTcpProxy(target: string | { host: string; port: number }): Promise<TcpProxy> {
  const { host, port: targetPort } =
    typeof target === 'string'
      ? {
          host: target.slice(0, target.lastIndexOf(':')),
          port: Number(target.slice(target.lastIndexOf(':') + 1)),
        }
      : target;
  const port = await freePort();
  const pairs = new Set<[Socket, Socket]>();
  let paused = false;
  let server: Server | undefined;
  const drop = () => {
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(targetPort, host);
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      const close = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const socket of pair) {
        socket.on('error', close);
        socket.on('close', close);
      }
      if (paused) {
        client.pause();
        upstream.pause();
      } else client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    server = s;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    drop();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    address: `127.0.0.1:${port}`,
    port,
    pause() {
      paused = true;
      for (const [a, b] of pairs) {
        a.unpipe(b);
        b.unpipe(a);
        a.pause();
        b.pause();
      }
    },
    resume() {
      paused = false;
      for (const [a, b] of pairs) {
        a.pipe(b);
        b.pipe(a);
        a.resume();
        b.resume();
      }
    },
    drop,
    cut,
    restore: async () => {
      if (!server) await listen();
    },
    stop: cut,
    close: cut,
  };
}
