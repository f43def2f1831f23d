import { appendFile } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { parseDurationMs } from '@coffer/contracts';

/** Where a device's lines go. `write` resolves once the line is handed over, rejects on failure. */
export interface AuditSink {
  write(line: string): Promise<void>;
  close(): void;
}

const DISCARD: AuditSink = { write: () => Promise.resolve(), close: () => undefined };

const STDOUT: AuditSink = {
  write: (line) =>
    new Promise((resolve, reject) =>
      process.stdout.write(line, (error) => (error ? reject(error) : resolve())),
    ),
  close: () => undefined,
};

/**
 * A file device: each line appended with O_APPEND (so a rotated or removed file is simply
 * recreated, as Vault does on SIGHUP), created with the device's mode (default 0600).
 */
class AuditFileSink implements AuditSink {
  constructor(
    private readonly path: string,
    private readonly mode: number,
  ) {}

  write(line: string): Promise<void> {
    return appendFile(this.path, line, { mode: this.mode });
  }

  close(): void {
    // nothing held open
  }
}

/**
 * A socket device (tcp or unix): one connection, opened on first use and again after any failure
 * (Vault reconnects and retries once). A write not handed over within write_timeout fails and
 * drops the connection.
 */
class AuditSocketSink implements AuditSink {
  private socket: Promise<Socket> | undefined;

  constructor(
    private readonly target: { path: string } | { host: string; port: number },
    private readonly timeoutMs: number,
  ) {}

  async write(line: string): Promise<void> {
    try {
      await this.send(line);
    } catch {
      this.drop();
      await this.send(line);
    }
  }

  close(): void {
    this.drop();
  }

  private async send(line: string): Promise<void> {
    const socket = await this.connection();
    await this.bounded(
      new Promise<void>((resolve, reject) =>
        socket.write(line, (error) => (error ? reject(error) : resolve())),
      ),
      'write',
    );
  }

  private connection(): Promise<Socket> {
    this.socket ??= this.bounded(
      new Promise<Socket>((resolve, reject) => {
        const socket = createConnection(this.target);
        socket.once('connect', () => {
          socket.removeListener('error', reject);
          // a later error only drops the connection; the next write reconnects
          socket.on('error', () => this.drop());
          socket.on('close', () => this.drop());
          resolve(socket);
        });
        socket.once('error', reject);
      }),
      'connect',
    ).catch((error: unknown) => {
      this.socket = undefined;
      throw error;
    });
    return this.socket;
  }

  private drop(): void {
    const current = this.socket;
    this.socket = undefined;
    void current?.then((s) => s.destroy()).catch(() => undefined);
  }

  private bounded<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`socket ${what} timed out after ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}

function socketTarget(
  address: string,
  socketType: string,
): { path: string } | { host: string; port: number } {
  if (socketType === 'unix') return { path: address };
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '127.0.0.1' : host, port: Number(address.slice(colon + 1)) };
}

/** The sink of a device, from its type and options (validated by core-sys when it was enabled). */
export function createAuditSink(type: string, options: Record<string, string>): AuditSink {
  if (type === 'socket') {
    const timeout = options['write_timeout'];
    const timeoutMs = timeout ? parseDurationMs(timeout) : 2_000;
    return new AuditSocketSink(
      socketTarget(options['address'] ?? '', options['socket_type'] ?? 'tcp'),
      timeoutMs,
    );
  }
  const filePath = options['file_path'] ?? options['path'] ?? '';
  if (filePath === 'discard') return DISCARD;
  if (filePath === 'stdout') return STDOUT;
  const mode = options['mode'] ? parseInt(options['mode'], 8) : 0o600;
  return new AuditFileSink(filePath, mode);
}
